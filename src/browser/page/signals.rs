//! Debug signals per session: console messages, uncaught page errors and finished network
//! requests, kept in bounded ring buffers (oldest dropped, drops counted) until an agent pulls them.
//!
//! The page's pump writes here; `logs.pull` / `network.pull` drain (`pulls`); action results report
//! how many new error entries are waiting so an agent knows whether to pull.

use std::collections::{HashMap, VecDeque};

use schemars::JsonSchema;
use serde::Serialize;

/// Entries each buffer keeps before dropping the oldest.
pub const CAPACITY: usize = 1000;
/// Bytes of an error response body kept.
pub const BODY_LIMIT: usize = 2048;
/// Requests tracked between start and end; more are not recorded (a runaway page).
const MAX_PENDING: usize = 5000;

/// A bounded FIFO that counts what it had to drop.
#[derive(Debug)]
pub struct Ring<T> {
    items: VecDeque<T>,
    dropped: u64,
}

impl<T> Default for Ring<T> {
    fn default() -> Self {
        Self { items: VecDeque::new(), dropped: 0 }
    }
}

impl<T> Ring<T> {
    /// Appends `item`, dropping the oldest entry when full (counted in `buffer`'s metric).
    pub fn push(&mut self, buffer: &'static str, item: T) {
        if self.items.len() == CAPACITY {
            self.items.pop_front();
            self.dropped += 1;
            crate::metrics::EVENTS_DROPPED.with_label_values(&[buffer]).inc();
        }
        self.items.push_back(item);
    }

    /// Takes every entry and the drop count, leaving the ring empty.
    pub fn drain(&mut self) -> (Vec<T>, u64) {
        (self.items.drain(..).collect(), std::mem::take(&mut self.dropped))
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter()
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.items.iter_mut()
    }
}

/// Console severity, from `console.debug` up to `console.error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Debug,
    Info,
    Warning,
    Error,
}

impl Level {
    /// The level of a console API call type (`log`, `warning`, `assert` …).
    pub fn of(console_type: &str) -> Self {
        match console_type {
            "error" | "assert" => Self::Error,
            "warning" | "warn" => Self::Warning,
            "debug" | "trace" => Self::Debug,
            _ => Self::Info,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ConsoleEntry {
    /// The console method: log, info, warning, error, debug, assert, …
    #[serde(rename = "type")]
    pub kind: String,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// 1-based line in `url`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PageError {
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkEntry {
    #[serde(skip)]
    pub request_id: String,
    pub url: String,
    pub method: String,
    /// HTTP status; absent when no response arrived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    pub resource_type: String,
    /// Why the request failed (net::ERR_CONNECTION_REFUSED, blocked_by_policy, aborted …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// The first 2 KB of an error response's text body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// True until the error body has been fetched.
    #[serde(skip)]
    pub body_pending: bool,
}

impl NetworkEntry {
    pub fn is_error(&self) -> bool {
        self.failure.is_some() || self.status.is_some_and(|s| s >= 400)
    }
}

/// A request between its start and its end.
#[derive(Debug, Clone)]
pub struct PendingRequest {
    pub url: String,
    pub method: String,
    pub resource_type: String,
    pub status: Option<u16>,
    pub mime_type: String,
}

/// Counts of new error entries waiting since the last pull.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignalCounts {
    pub console_errors: u64,
    pub page_errors: u64,
    pub failed_requests: u64,
}

#[derive(Debug, Default)]
pub struct Signals {
    pub console: Ring<ConsoleEntry>,
    pub page_errors: Ring<PageError>,
    pub network: Ring<NetworkEntry>,
    pending: HashMap<String, PendingRequest>,
    counts: SignalCounts,
}

impl Signals {
    pub fn console(&mut self, entry: ConsoleEntry) {
        if Level::of(&entry.kind) == Level::Error {
            self.counts.console_errors += 1;
        }
        self.console.push("console", entry);
    }

    pub fn page_error(&mut self, error: PageError) {
        self.counts.page_errors += 1;
        self.page_errors.push("page_errors", error);
    }

    pub fn request_started(&mut self, id: String, request: PendingRequest) {
        if self.pending.len() < MAX_PENDING || self.pending.contains_key(&id) {
            self.pending.insert(id, request);
        }
    }

    pub fn response(&mut self, id: &str, status: u16, mime_type: String) {
        if let Some(pending) = self.pending.get_mut(id) {
            pending.status = Some(status);
            pending.mime_type = mime_type;
        }
    }

    /// Records a finished request; true when its error body should be fetched.
    pub fn request_finished(&mut self, id: &str) -> bool {
        let Some(pending) = self.pending.remove(id) else { return false };
        let wants_body = pending.status.is_some_and(|s| s >= 400) && is_text(&pending.mime_type);
        self.push_network(id, pending, None, wants_body);
        wants_body
    }

    /// The URL of a request that has started and not yet ended.
    pub fn pending_url(&self, id: &str) -> Option<&str> {
        self.pending.get(id).map(|p| p.url.as_str())
    }

    /// Up to `limit` URLs of requests still in flight (for timeout messages).
    pub fn pending_urls(&self, limit: usize) -> Vec<String> {
        self.pending.values().take(limit).map(|p| p.url.chars().take(200).collect()).collect()
    }

    pub fn request_failed(&mut self, id: &str, failure: String) {
        if let Some(pending) = self.pending.remove(id) {
            self.push_network(id, pending, Some(failure), false);
        }
    }

    fn push_network(&mut self, id: &str, p: PendingRequest, failure: Option<String>, body_pending: bool) {
        let entry = NetworkEntry {
            request_id: id.to_owned(),
            url: p.url,
            method: p.method,
            status: p.status,
            resource_type: p.resource_type,
            failure,
            body: None,
            body_pending,
        };
        if entry.is_error() {
            self.counts.failed_requests += 1;
        }
        self.network.push("network", entry);
    }

    /// Stores a fetched error body (cut to [`BODY_LIMIT`] bytes on a char boundary).
    pub fn body(&mut self, id: &str, body: Option<String>) {
        if let Some(entry) = self.network.iter_mut().find(|e| e.request_id == id) {
            entry.body = body.map(|b| cut(b, BODY_LIMIT));
            entry.body_pending = false;
        }
    }

    pub fn counts(&self) -> SignalCounts {
        self.counts
    }

    pub fn reset_log_counts(&mut self) {
        self.counts.console_errors = 0;
        self.counts.page_errors = 0;
    }

    pub fn reset_network_counts(&mut self) {
        self.counts.failed_requests = 0;
    }

    pub fn bodies_pending(&self) -> bool {
        self.network.iter().any(|e| e.body_pending)
    }
}

fn is_text(mime: &str) -> bool {
    let mime = mime.to_ascii_lowercase();
    mime.starts_with("text/") || mime.contains("json") || mime.contains("xml") || mime.contains("javascript")
}

fn cut(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    s
}

/// What `logs.pull` returns.
#[derive(Debug, Default)]
pub struct Logs {
    pub console: Vec<ConsoleEntry>,
    pub page_errors: Vec<PageError>,
    pub dropped: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn console(kind: &str) -> ConsoleEntry {
        ConsoleEntry { kind: kind.into(), text: "x".into(), url: None, line: None }
    }

    #[test]
    fn a_full_ring_drops_the_oldest_and_counts_it() {
        let mut ring = Ring::default();
        for i in 0..(CAPACITY + 5) {
            ring.push("test", i);
        }
        let (items, dropped) = ring.drain();
        assert_eq!(dropped, 5);
        assert_eq!(items.len(), CAPACITY);
        assert_eq!(items[0], 5);
        let (items, dropped) = ring.drain();
        assert!(items.is_empty());
        assert_eq!(dropped, 0);
    }

    #[test]
    fn levels_are_ordered_from_debug_to_error() {
        assert!(Level::of("error") > Level::of("warning"));
        assert!(Level::of("warning") > Level::of("log"));
        assert!(Level::of("log") > Level::of("debug"));
        assert_eq!(Level::of("assert"), Level::Error);
    }

    #[test]
    fn counts_only_errors() {
        let mut s = Signals::default();
        s.console(console("log"));
        s.console(console("error"));
        s.page_error(PageError { message: "boom".into(), stack: None });
        let p = |status| PendingRequest {
            url: "http://x/".into(),
            method: "GET".into(),
            resource_type: "Fetch".into(),
            status,
            mime_type: "application/json".into(),
        };
        s.request_started("ok".into(), p(Some(200)));
        assert!(!s.request_finished("ok"));
        s.request_started("bad".into(), p(Some(500)));
        assert!(s.request_finished("bad"), "a JSON error body is fetched");
        s.request_started("refused".into(), p(None));
        s.request_failed("refused", "net::ERR_CONNECTION_REFUSED".into());
        assert_eq!(s.counts(), SignalCounts { console_errors: 1, page_errors: 1, failed_requests: 2 });
        assert!(s.bodies_pending());
        s.body("bad", Some("é".repeat(2000)));
        assert!(!s.bodies_pending());
        let body = s.network.iter().find(|e| e.request_id == "bad").unwrap().body.clone().unwrap();
        assert!(body.len() <= BODY_LIMIT && body.chars().all(|c| c == 'é'));
    }
}
