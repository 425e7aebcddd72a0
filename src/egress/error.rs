//! The egress layer's errors: why a URL or a connection was refused or could not be made.
//!
//! A URL is input: errors quote at most 200 characters of it (`crate::quote`).

use std::net::IpAddr;

use crate::quote::{clip, quote};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EgressError {
    #[error("{} is not a valid URL: {reason}", quote(url))]
    Malformed { url: String, reason: String },
    #[error("{} is a {}: URL; only http:// and https:// URLs can be loaded", quote(url), clip(scheme))]
    NotHttp { url: String, scheme: String },
    #[error("{} does not match ALLOW_HOST_REGEX ({pattern}), which is matched against the whole URL", clip(url))]
    NotAllowed { url: String, pattern: String },
    #[error("{host} resolves to {ip}, a private, loopback or link-local address (BLOCK_PRIVATE_IPS is on)")]
    PrivateAddress { host: String, ip: IpAddr },
    /// An upstream proxy (`session.create {proxy}`) ALLOW_PROXY_REGEX does not admit; `pattern`
    /// is `None` when the variable is unset (no upstream proxy is allowed).
    #[error("{} is not an allowed upstream proxy: {}", clip(proxy), match pattern {
        Some(pattern) => format!("it does not match ALLOW_PROXY_REGEX ({pattern})"),
        None => "this service allows none (ALLOW_PROXY_REGEX is unset)".to_owned(),
    })]
    ProxyNotAllowed { proxy: String, pattern: Option<String> },
    /// An upstream proxy that cannot be used as given.
    #[error("upstream proxy {proxy}: {reason}")]
    ProxyUnusable { proxy: String, reason: String },
}
