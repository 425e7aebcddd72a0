//! Egress control: every byte the browser fetches passes the policy, not only `page.goto`'s URL.
//!
//! Each session's browser context is pointed at its own small HTTP proxy inside this service
//! (`proxy`), with loopback included, so redirects, subresources, fetch/XHR, WebSockets, workers,
//! popups, beacons and prefetches all go through it. The proxy checks each request against the
//! policy (`policy`) before connecting anywhere; a refused one never reaches the network and is
//! remembered (`failures`) so the session can report it as `blocked_by_policy`. A download's
//! bytes are held at DOWNLOAD_MAX_BYTES as they pass (`download_cap`).
//!
//! A session may send its allowed traffic on through an upstream proxy of its own (`upstream`);
//! that proxy is itself a host the service connects to, admitted by ALLOW_PROXY_REGEX and
//! BLOCK_PRIVATE_IPS before the session exists.
//!
//! Why a proxy rather than CDP request interception: `Fetch.requestPaused` never sees WebSocket
//! handshakes, and sees worker and service-worker traffic only after attaching to every such
//! target; a proxy sees every connection Chromium opens for the context, whatever started it.

mod download_cap;
pub mod error;
pub mod failures;
pub mod policy;
pub mod proxy;
pub mod upstream;

pub use error::EgressError;
pub use policy::EgressPolicy;
pub use upstream::Upstream;
