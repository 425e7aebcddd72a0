//! Why the session's proxy did not deliver a request, so the session can report it truthfully.
//!
//! Behind a proxy, Chromium would see a refused or unreachable host only as the proxy's HTTP answer
//! (plain http) or as `net::ERR_TUNNEL_CONNECTION_FAILED` (https, WebSockets). So the proxy records
//! each failure before it answers, and marks its answer with [`FAILURE_HEADER`]; the page's watch
//! turns both back into the failure a direct connection would have shown (`blocked_by_policy`,
//! `net::ERR_CONNECTION_REFUSED` …), matched by host and port.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use url::Url;

/// The failure network.pull shows for a request the egress policy refused.
pub const BLOCKED_BY_POLICY: &str = "blocked_by_policy";

/// Header on the proxy's own answers to requests it did not deliver; its value is the failure.
pub const FAILURE_HEADER: &str = "x-text-browser-failure";

/// Failures remembered per session; older ones are forgotten first.
const REMEMBERED: usize = 256;

#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// `host:port` the request was for.
    pub origin: String,
    /// The whole URL of a plain-http request; `None` for a tunnel, where only the origin is known.
    pub url: Option<String>,
    /// `blocked_by_policy`, or a Chromium-style net error (`net::ERR_CONNECTION_REFUSED`).
    pub failure: String,
    /// Why, in words.
    pub detail: String,
}

/// Failures, the latest [`REMEMBERED`]: a plain list, which a page's watch keeps a copy of.
#[derive(Debug, Clone, Default)]
pub struct Failures(VecDeque<Failure>);

impl Failures {
    /// Records a failed request: `url` is the whole URL of a plain-http request, `None` for a tunnel.
    pub fn record(&mut self, host: &str, port: u16, url: Option<&str>, failure: &str, detail: String) {
        if self.0.len() == REMEMBERED {
            self.0.pop_front();
        }
        let url = url.map(without_fragment);
        self.0.push_back(Failure { origin: origin_key(host, port), url, failure: failure.to_owned(), detail });
    }

    /// The latest failure recorded for a request to `url`: the same URL for plain http, the same
    /// host and port for a tunnel.
    pub fn failure_for(&self, url: &str) -> Option<Failure> {
        let parsed = Url::parse(url).ok()?;
        let key = origin_key(&parsed.host()?.to_string(), parsed.port_or_known_default()?);
        let url = without_fragment(url);
        self.0.iter().rev().find(|f| f.origin == key && f.url.as_deref().is_none_or(|u| u == url)).cloned()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The session's failures, written by its proxy and read by its pages' pumps. Each record bumps a
/// version, so a pump sees at the cost of one atomic load whether it needs a new copy.
#[derive(Debug, Default)]
pub struct FailureLog {
    failures: Mutex<Failures>,
    version: AtomicU64,
}

impl FailureLog {
    fn failures(&self) -> std::sync::MutexGuard<'_, Failures> {
        self.failures.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a failed request: `url` is the whole URL of a plain-http request, `None` for a tunnel.
    pub fn record(&self, host: &str, port: u16, url: Option<&str>, failure: &str, detail: String) {
        self.failures().record(host, port, url, failure, detail);
        self.version.fetch_add(1, Ordering::Release);
    }

    /// The latest failure recorded for a request to `url` (see [`Failures::failure_for`]).
    pub fn failure_for(&self, url: &str) -> Option<Failure> {
        self.failures().failure_for(url)
    }

    /// A copy of the failures and its version, when something was recorded since version `seen`.
    pub fn newer_than(&self, seen: u64) -> Option<(u64, Failures)> {
        if self.version.load(Ordering::Acquire) == seen {
            return None;
        }
        let failures = self.failures();
        Some((self.version.load(Ordering::Acquire), failures.clone()))
    }

    pub fn len(&self) -> usize {
        self.failures().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn without_fragment(url: &str) -> String {
    url.split('#').next().unwrap_or_default().to_owned()
}

fn origin_key(host: &str, port: u16) -> String {
    format!("{}:{port}", host.trim_end_matches('.').to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_found_by_the_urls_host_and_port() {
        let log = FailureLog::default();
        log.record("127.0.0.2", 443, None, BLOCKED_BY_POLICY, "not allowed".into());
        log.record("[::1]", 9000, None, BLOCKED_BY_POLICY, "not allowed".into());
        assert!(log.failure_for("https://127.0.0.2/secret?x=1").is_some());
        assert!(log.failure_for("wss://127.0.0.2/socket").is_some());
        assert!(log.failure_for("ws://[::1]:9000/").is_some());
        assert!(log.failure_for("https://127.0.0.2:8443/").is_none());
        assert!(log.failure_for("https://127.0.0.1/").is_none());
    }

    #[test]
    fn a_plain_http_failure_matches_only_its_own_url() {
        let log = FailureLog::default();
        log.record("h", 80, Some("http://h/admin"), BLOCKED_BY_POLICY, String::new());
        assert!(log.failure_for("http://h/admin#top").is_some());
        assert!(log.failure_for("http://h/app").is_none());
    }

    #[test]
    fn the_latest_failure_wins() {
        let log = FailureLog::default();
        log.record("h", 443, None, "net::ERR_CONNECTION_REFUSED", String::new());
        log.record("h", 443, None, BLOCKED_BY_POLICY, String::new());
        assert_eq!(log.failure_for("https://h/").unwrap().failure, BLOCKED_BY_POLICY);
    }

    #[test]
    fn old_failures_are_forgotten_first() {
        let log = FailureLog::default();
        for port in 0..(REMEMBERED as u16 + 10) {
            log.record("h", port, None, BLOCKED_BY_POLICY, String::new());
        }
        assert_eq!(log.len(), REMEMBERED);
        assert!(log.failure_for("http://h:5/").is_none());
        assert!(log.failure_for("http://h:20/").is_some());
    }
}
