//! The API-key check in front of `/rpc`: `x-api-key` header, compared in constant time.
//!
//! Browsers cannot set headers on a WebSocket, so an upgrade request may carry the key as the
//! `api_key` query parameter instead. The key is never logged.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Response, StatusCode, header};
use axum::middleware::Next;

use super::rejection;
use super::server::Unauthenticated;
use crate::config::ApiKey;
use crate::metrics::Metrics;
use crate::rpc::error::ErrorKind;

#[derive(Clone)]
pub struct AuthState {
    pub key: Arc<ApiKey>,
    pub metrics: Metrics,
}

pub async fn require_api_key(State(state): State<AuthState>, request: Request, next: Next) -> Response<Body> {
    let presented = presented_key(&request);
    match presented {
        Some(key) if constant_time_eq(key.as_bytes(), state.key.expose().as_bytes()) => {
            // The connection is a known client's now: it leaves the unauthenticated count.
            if let Some(place) = request.extensions().get::<Unauthenticated>() {
                place.authenticated();
            }
            next.run(request).await
        }
        other => {
            state.metrics.http_rejected.with_label_values(&["401"]).inc();
            let message = if other.is_some() {
                "the x-api-key header does not match the service's API key"
            } else {
                "missing x-api-key header"
            };
            rejection::response(StatusCode::UNAUTHORIZED, ErrorKind::Unauthorized, message)
        }
    }
}

fn presented_key(request: &Request) -> Option<String> {
    if let Some(value) = request.headers().get("x-api-key") {
        return value.to_str().ok().map(str::to_owned);
    }
    let is_upgrade = request
        .headers()
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    if !is_upgrade {
        return None;
    }
    request.uri().query()?.split('&').find_map(|pair| pair.strip_prefix("api_key=")).map(percent_decode)
}

/// Decodes %XX escapes (keys are usually plain ASCII; this only makes escaped ones work). A `+`
/// stays a `+`: keys are often base64.
fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned()
}

/// Compares without returning early on the first differing byte (only the length can leak).
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_match_and_others_do_not() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret2"));
        assert!(!constant_time_eq(b"", b"x"));
    }

    #[test]
    fn query_keys_are_percent_decoded() {
        assert_eq!(percent_decode("a%2Bb"), "a+b");
        assert_eq!(percent_decode("plain"), "plain");
        assert_eq!(percent_decode("bad%zz"), "bad%zz");
    }
}
