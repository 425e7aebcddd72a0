//! Debug signals per session: console messages, uncaught page errors and network requests, kept
//! in bounded ring buffers (oldest dropped, drops counted) until an agent pulls them.
//!
//! The page's pump writes here; `logs.pull` / `network.pull` drain (`pulls`); action results report
//! how many new error entries are waiting, and what the action itself caused (`effects`). Every
//! entry carries a sequence number, so an action can read what happened since it began without
//! draining anything. Captured response bodies (`bodies`) and the redactor (`redact`) live here
//! too: whatever leaves the session passes through them.

use std::collections::{HashMap, VecDeque};

use schemars::JsonSchema;
use serde::Serialize;
use tokio::time::Instant;

use super::bodies::{BodyStore, cut, is_text};
use super::events::{CodeLocation, ErrorOrigin};
use super::live_feed::{LiveEvent, LiveFeed, LiveKind};
use super::redact::Redactor;

/// Entries each buffer keeps before dropping the oldest.
pub const CAPACITY: usize = 1000;
/// Bytes of a posted request body kept.
pub const REQUEST_BODY_LIMIT: usize = 2048;
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

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> {
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

/// Where a page error or console error came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// An uncaught exception.
    Exception,
    /// A rejected promise nothing handled.
    #[serde(rename = "unhandledrejection")]
    UnhandledRejection,
    /// A `console.*` call.
    Console,
    /// A dialog the page opened, and how it was answered.
    Dialog,
    /// A download the page began or finished.
    Download,
    /// A popup (new tab) the page opened.
    Popup,
}

impl From<ErrorOrigin> for Origin {
    fn from(origin: ErrorOrigin) -> Self {
        match origin {
            ErrorOrigin::Exception => Self::Exception,
            ErrorOrigin::UnhandledRejection => Self::UnhandledRejection,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ConsoleEntry {
    #[serde(skip)]
    pub seq: u64,
    /// The console method: log, info, warning, error, debug, assert, …
    #[serde(rename = "type")]
    pub method: String,
    /// `console`; `dialog` for a dialog or file chooser the page opened; `download`.
    pub kind: Origin,
    pub text: String,
    /// Where the call was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<CodeLocation>,
    /// For errors: the calling line and one each side, from the browser's copy of the script.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip)]
    pub source_pending: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PageError {
    #[serde(skip)]
    pub seq: u64,
    /// exception or unhandledrejection.
    pub kind: Origin,
    /// The error's first line, e.g. `TypeError: Cannot read properties of undefined (reading 'id')`.
    pub message: String,
    /// Where it was thrown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<CodeLocation>,
    /// The throwing line and one each side, from the browser's copy of the script, with the
    /// column marked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
    #[serde(skip)]
    pub source_pending: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkEntry {
    /// For network.body.
    pub request_id: String,
    #[serde(skip)]
    pub seq: u64,
    pub url: String,
    pub method: String,
    /// HTTP status; absent when no response arrived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    pub resource_type: String,
    /// Why the request failed (net::ERR_CONNECTION_REFUSED, blocked_by_policy, aborted …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Milliseconds from the request's start to its end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    /// The script location (or document line) that started it: `function (url:line:column)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initiator: Option<String>,
    /// The first 2 KB of the posted data (secrets masked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body: Option<String>,
    /// The first 2 KB of the response's text body (fetch/XHR and documents, and error responses).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body: Option<String>,
    /// When responseBody is only the start of the body: the whole body's size in bytes
    /// (network.body returns it all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body_bytes: Option<usize>,
    #[serde(skip)]
    pub mime_type: String,
    /// True until its body has been captured.
    #[serde(skip)]
    pub body_pending: bool,
    /// A request the browser made by itself (the favicon): never a failure.
    #[serde(skip)]
    pub browser_own: bool,
    #[serde(skip)]
    pub ended: Option<Instant>,
}

impl NetworkEntry {
    /// A failure worth an agent's attention (the browser's own requests never are).
    pub fn is_error(&self) -> bool {
        !self.browser_own && (self.failure.is_some() || self.status.is_some_and(|s| s >= 400))
    }

    /// Fetch/XHR and documents: the requests whose bodies are the app's data.
    pub fn is_data(&self) -> bool {
        is_data_type(&self.resource_type)
    }
}

fn is_data_type(resource_type: &str) -> bool {
    matches!(resource_type, "Fetch" | "XHR" | "Document")
}

/// A request between its start and its end.
#[derive(Debug, Clone)]
pub struct PendingRequest {
    pub seq: u64,
    pub url: String,
    pub method: String,
    pub resource_type: String,
    pub status: Option<u16>,
    pub mime_type: String,
    pub started: Instant,
    /// CDP monotonic seconds, for its duration.
    pub start_ts: f64,
    pub initiator: Option<String>,
    pub request_body: Option<String>,
    pub browser_own: bool,
}

impl PendingRequest {
    /// Requests that stay open by design (event streams, sockets): reported, never waited for.
    pub fn is_long_lived(&self) -> bool {
        matches!(self.resource_type.as_str(), "EventSource" | "WebSocket")
    }
}

/// `function (url:line:column)`, the way stack traces name a place (a document's parser gives
/// no line: then only the URL).
pub fn format_location(at: &CodeLocation) -> String {
    let place = if at.line == 0 { at.url.clone() } else { format!("{}:{}:{}", at.url, at.line, at.column) };
    if at.function.is_empty() { place } else { format!("{} ({place})", at.function) }
}

/// Whether a request is one the browser makes by itself rather than the page (the favicon).
pub fn is_browser_own(resource_type: &str, url: &str) -> bool {
    resource_type == "Other" && url::Url::parse(url).is_ok_and(|u| u.path() == "/favicon.ico" && u.query().is_none())
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
    /// The last sequence number handed out.
    seq: u64,
    pub bodies: BodyStore,
    pub redactor: Redactor,
    /// Everything filed here, published as it happens (`events.subscribe`).
    pub live: LiveFeed,
}

impl Signals {
    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// The sequence number of the newest entry so far: entries after it are newer.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Files a console message; returns its sequence number.
    pub fn console(&mut self, entry: ConsoleEntry) -> u64 {
        self.console_at(entry, None)
    }

    /// Files a console message the page logged at `at` (its clock, ms since the Unix epoch).
    pub fn console_at(&mut self, mut entry: ConsoleEntry, at: Option<u64>) -> u64 {
        entry.seq = self.next_seq();
        let error = Level::of(&entry.method) == Level::Error;
        if error {
            self.counts.console_errors += 1;
        }
        let kind = match entry.kind {
            Origin::Dialog => LiveKind::Dialog,
            Origin::Download => LiveKind::Download,
            Origin::Popup => LiveKind::Popup,
            _ => LiveKind::Console,
        };
        let mut event = LiveEvent::new(kind, error, self.redactor.text(&entry.text)).at(at);
        event.location = entry.location.clone();
        self.live.publish(event);
        let seq = entry.seq;
        self.console.push("console", entry);
        seq
    }

    /// Files an uncaught page error thrown at `at` (the page's clock, ms since the Unix epoch);
    /// returns its sequence number.
    pub fn page_error_at(&mut self, mut error: PageError, at: Option<u64>) -> u64 {
        error.seq = self.next_seq();
        self.counts.page_errors += 1;
        let mut event = LiveEvent::new(LiveKind::PageError, true, self.redactor.text(&error.message)).at(at);
        event.location = error.location.clone();
        self.live.publish(event);
        let seq = error.seq;
        self.page_errors.push("page_errors", error);
        seq
    }

    /// Adds the source excerpt of the console entry or page error `seq` (or gives up on it).
    pub fn set_source(&mut self, seq: u64, source: Option<String>) {
        if let Some(entry) = self.page_errors.iter_mut().find(|e| e.seq == seq) {
            entry.source = source;
            entry.source_pending = false;
        } else if let Some(entry) = self.console.iter_mut().find(|e| e.seq == seq) {
            entry.source = source;
            entry.source_pending = false;
        }
    }

    pub fn request_started(&mut self, id: String, mut request: PendingRequest) {
        if self.pending.len() < MAX_PENDING || self.pending.contains_key(&id) {
            request.seq = match self.pending.get(&id) {
                // A redirect hop keeps its place in the sequence.
                Some(earlier) => earlier.seq,
                None => self.next_seq(),
            };
            if let Some(body) = request.request_body.take() {
                request.request_body = Some(cut(&body, REQUEST_BODY_LIMIT).0.to_owned());
            }
            self.pending.insert(id, request);
        }
    }

    pub fn set_request_body(&mut self, id: &str, body: String) {
        if let Some(pending) = self.pending.get_mut(id) {
            pending.request_body = Some(cut(&body, REQUEST_BODY_LIMIT).0.to_owned());
        } else if let Some(entry) = self.network.iter_mut().find(|e| e.request_id == id) {
            entry.request_body = Some(cut(&body, REQUEST_BODY_LIMIT).0.to_owned());
        }
    }

    /// The content type the newest response for `url` declared, finished or still open (a download's
    /// request is often never finished in the Network domain: Chromium hands it to the download).
    pub fn mime_of(&self, url: &str) -> Option<String> {
        let finished = self.network.iter().rev().find(|e| e.url == url && !e.mime_type.is_empty());
        finished.map(|e| e.mime_type.clone()).or_else(|| {
            let open = self.pending.values().filter(|p| p.url == url && !p.mime_type.is_empty());
            open.max_by_key(|p| p.seq).map(|p| p.mime_type.clone())
        })
    }

    /// A response arrived (at `at`, the browser's clock, ms since the Unix epoch).
    pub fn response(&mut self, id: &str, status: u16, mime_type: String, at: Option<u64>) {
        if let Some(pending) = self.pending.get_mut(id) {
            pending.status = Some(status);
            pending.mime_type = mime_type;
            if !pending.browser_own {
                // Published on its answer, not its end: what the page does with the answer (a
                // console error in `.then`) comes after it, and so it arrives after it.
                let (method, url) = (pending.method.clone(), pending.url.clone());
                self.publish_request(&method, &url, Some(status), None, at);
            }
        } else if let Some(entry) =
            self.network.iter_mut().filter(|e| e.request_id == id && e.mime_type.is_empty()).last()
        {
            // A response can trail its request's end: a download is aborted in the page as soon as
            // Chromium takes it over, and its response event may come after that.
            entry.mime_type = mime_type;
        }
    }

    /// Records a finished request; true when its body should be captured.
    pub fn request_finished(&mut self, id: &str, end_ts: f64) -> bool {
        let Some(pending) = self.pending.remove(id) else { return false };
        let text = is_text(&pending.mime_type);
        let error = pending.status.is_some_and(|s| s >= 400) && !pending.browser_own;
        let wants_body = text && (error || is_data_type(&pending.resource_type));
        self.push_network(id, pending, None, end_ts, wants_body);
        wants_body
    }

    pub fn request_failed(&mut self, id: &str, failure: String, end_ts: f64) {
        if let Some(pending) = self.pending.remove(id) {
            self.push_network(id, pending, Some(failure), end_ts, false);
        }
    }

    fn push_network(&mut self, id: &str, p: PendingRequest, failure: Option<String>, end_ts: f64, body_pending: bool) {
        let ms = (p.start_ts > 0.0 && end_ts >= p.start_ts).then(|| ((end_ts - p.start_ts) * 1000.0).round() as u64);
        let entry = NetworkEntry {
            request_id: id.to_owned(),
            seq: p.seq,
            url: p.url,
            method: p.method,
            status: p.status,
            resource_type: p.resource_type,
            failure,
            ms,
            initiator: p.initiator,
            request_body: p.request_body,
            response_body: None,
            response_body_bytes: None,
            mime_type: p.mime_type,
            body_pending,
            browser_own: p.browser_own,
            ended: Some(Instant::now()),
        };
        if entry.is_error() {
            self.counts.failed_requests += 1;
        }
        // One with an answer was published when the answer came; failures are news either way.
        if !entry.browser_own && (entry.status.is_none() || entry.failure.is_some()) {
            self.publish_request(&entry.method, &entry.url, entry.status, entry.failure.as_deref(), None);
        }
        self.network.push("network", entry);
    }

    fn publish_request(&self, method: &str, url: &str, status: Option<u16>, failure: Option<&str>, at: Option<u64>) {
        let outcome = match (failure, status) {
            (Some(failure), _) => failure.to_owned(),
            (None, Some(status)) => status.to_string(),
            (None, None) => "no answer".into(),
        };
        let error = failure.is_some() || status.is_some_and(|s| s >= 400);
        let url = self.redactor.text(url);
        let mut event = LiveEvent::new(LiveKind::Network, error, format!("{method} {url} → {outcome}")).at(at);
        event.url = Some(url);
        event.status = status;
        self.live.publish(event);
    }

    /// Stores a captured body (or gives up on it).
    pub fn body(&mut self, id: &str, body: Option<String>) {
        let entry = self.network.iter_mut().find(|e| e.request_id == id);
        let url = entry.as_ref().map(|e| e.url.clone()).unwrap_or_default();
        if let Some(entry) = entry {
            entry.body_pending = false;
        }
        if let Some(body) = &body {
            self.bodies.insert(id, &url, body);
        }
    }

    /// The URL of a request that has started and not yet ended.
    pub fn pending_url(&self, id: &str) -> Option<&str> {
        self.pending.get(id).map(|p| p.url.as_str())
    }

    /// Requests in flight, oldest first (the browser's own left out).
    pub fn pending(&self) -> Vec<&PendingRequest> {
        let mut pending: Vec<&PendingRequest> = self.pending.values().filter(|p| !p.browser_own).collect();
        pending.sort_by_key(|p| p.seq);
        pending
    }

    /// Up to `limit` URLs of requests still in flight (for timeout messages).
    pub fn pending_urls(&self, limit: usize) -> Vec<String> {
        self.pending().into_iter().take(limit).map(|p| p.url.chars().take(200).collect()).collect()
    }

    pub fn counts(&self) -> SignalCounts {
        self.counts
    }

    pub fn reset_log_counts(&mut self) {
        self.counts.console_errors = 0;
        self.counts.page_errors = 0;
    }

    /// After a pull: failed requests still waiting are those the pull left in the buffer.
    pub fn recount_failed_requests(&mut self) {
        self.counts.failed_requests = self.network.iter().filter(|e| e.is_error()).count() as u64;
    }

    /// True while a body of a request after `since` is still being captured.
    pub fn bodies_pending(&self, since: u64) -> bool {
        self.network.iter().rev().take_while(|e| e.seq > since).any(|e| e.body_pending)
    }

    /// True while a source excerpt of an entry after `since` is still being fetched.
    pub fn sources_pending(&self, since: u64) -> bool {
        self.page_errors.iter().rev().take_while(|e| e.seq > since).any(|e| e.source_pending)
            || self.console.iter().rev().take_while(|e| e.seq > since).any(|e| e.source_pending)
    }

    /// `entry` as shown: its captured body excerpt (when `with_body`), secrets masked.
    pub fn shown(&self, entry: &NetworkEntry, with_body: bool, excerpt: usize) -> NetworkEntry {
        let mut shown = entry.clone();
        shown.request_body = entry.request_body.as_deref().map(|b| self.redactor.body(cut(b, excerpt).0));
        let body = with_body.then(|| self.bodies.get(&entry.request_id)).flatten();
        shown.response_body = body.map(|body| self.redactor.body(cut(&body.text, excerpt).0));
        shown.response_body_bytes = body.filter(|b| b.text.len() > excerpt || b.truncated).map(|b| b.text.len());
        shown.url = self.redactor.text(&entry.url);
        shown
    }

    /// The whole captured body of `request_id`, secrets masked.
    pub fn whole_body(&self, request_id: &str) -> Result<(String, bool), String> {
        match self.bodies.get(request_id) {
            Some(body) => Ok((self.redactor.body(&body.text), body.truncated)),
            None if self.bodies.was_evicted(request_id) => Err(format!(
                "the body of {request_id} was evicted: a session keeps {} MiB of bodies, newest first",
                super::bodies::SESSION_CAP / (1024 * 1024)
            )),
            None => Err(format!(
                "no body was captured for {request_id}: bodies are kept for fetch/XHR and document responses \
                 and for error responses with a text body, once they have finished"
            )),
        }
    }

    /// Requests started after `since`: those finished (in the ring) and those still in flight.
    pub fn requests_since(&self, since: u64) -> (Vec<&NetworkEntry>, Vec<&PendingRequest>) {
        let mut finished: Vec<&NetworkEntry> =
            self.network.iter().rev().take_while(|e| e.seq > since).filter(|e| !e.browser_own).collect();
        finished.reverse();
        let pending = self.pending().into_iter().filter(|p| p.seq > since).collect();
        (finished, pending)
    }

    /// When a request started after `since` last started or ended, and how many of them (not
    /// counting long-lived streams) are still in flight: what an action's settling waits on.
    pub fn activity_since(&self, since: u64) -> (Option<Instant>, usize) {
        let mut last: Option<Instant> = None;
        let mut open = 0;
        for p in self.pending.values().filter(|p| p.seq > since && !p.browser_own) {
            last = last.max(Some(p.started));
            if !p.is_long_lived() {
                open += 1;
            }
        }
        for e in self.network.iter().rev().take_while(|e| e.seq > since) {
            if !e.browser_own {
                last = last.max(e.ended);
            }
        }
        (last, open)
    }
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

    fn console(method: &str) -> ConsoleEntry {
        ConsoleEntry {
            seq: 0,
            method: method.into(),
            kind: Origin::Console,
            text: "x".into(),
            location: None,
            source: None,
            source_pending: false,
        }
    }

    fn request(url: &str, resource_type: &str, status: Option<u16>) -> PendingRequest {
        PendingRequest {
            seq: 0,
            url: url.into(),
            method: "GET".into(),
            resource_type: resource_type.into(),
            status,
            mime_type: "application/json".into(),
            started: Instant::now(),
            start_ts: 1.0,
            initiator: None,
            request_body: None,
            browser_own: is_browser_own(resource_type, url),
        }
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
    fn counts_only_errors_and_captures_data_and_error_bodies() {
        let mut s = Signals::default();
        s.console(console("log"));
        s.console(console("error"));
        s.page_error_at(
            PageError {
                seq: 0,
                kind: Origin::Exception,
                message: "boom".into(),
                location: None,
                source: None,
                stack: None,
                source_pending: false,
            },
            None,
        );
        s.request_started("ok".into(), request("http://x/api", "Fetch", Some(200)));
        assert!(s.request_finished("ok", 1.25), "a fetch's JSON body is captured even when it succeeded");
        s.request_started("img".into(), request("http://x/a.png", "Image", Some(200)));
        assert!(!s.request_finished("img", 1.5), "an image's is not");
        s.request_started("bad".into(), request("http://x/b.js", "Script", Some(500)));
        assert!(s.request_finished("bad", 2.0), "an error response's text body is captured");
        s.request_started("refused".into(), request("http://x/c", "Fetch", None));
        s.request_failed("refused", "net::ERR_CONNECTION_REFUSED".into(), 2.0);
        assert_eq!(s.counts(), SignalCounts { console_errors: 1, page_errors: 1, failed_requests: 2 });
        let ok = s.network.iter().find(|e| e.request_id == "ok").unwrap();
        assert_eq!(ok.ms, Some(250));
        assert!(s.bodies_pending(0));
        s.body("ok", Some("{\"a\":1}".into()));
        s.body("bad", None);
        assert!(!s.bodies_pending(0));
        assert_eq!(s.whole_body("ok").unwrap().0, "{\"a\":1}");
        assert!(s.whole_body("img").unwrap_err().contains("no body was captured"));
    }

    #[test]
    fn the_favicon_is_the_browsers_own_and_never_a_failure() {
        let mut s = Signals::default();
        s.request_started("f".into(), request("http://x/favicon.ico", "Other", Some(404)));
        s.request_finished("f", 2.0);
        assert_eq!(s.counts().failed_requests, 0);
        assert!(!s.network.iter().next().unwrap().is_error());
        assert!(s.requests_since(0).0.is_empty(), "not something the page did");
        assert!(!is_browser_own("Fetch", "http://x/favicon.ico"), "a page's own fetch of it is the page's");
    }

    #[test]
    fn requests_since_a_mark_include_those_still_in_flight() {
        let mut s = Signals::default();
        s.request_started("old".into(), request("http://x/old", "Fetch", None));
        let mark = s.seq();
        s.request_started("new".into(), request("http://x/new", "Fetch", None));
        s.request_started("done".into(), request("http://x/done", "Fetch", Some(204)));
        s.request_finished("done", 2.0);
        let (finished, pending) = s.requests_since(mark);
        assert_eq!(finished.iter().map(|e| e.url.as_str()).collect::<Vec<_>>(), ["http://x/done"]);
        assert_eq!(pending.iter().map(|p| p.url.as_str()).collect::<Vec<_>>(), ["http://x/new"]);
        let (last, open) = s.activity_since(mark);
        assert!(last.is_some());
        assert_eq!(open, 1);
    }
}
