//! What a session knows about its page between calls, kept current by one pump task per page.
//!
//! The pump drains the page's CDP event streams (they are unbounded: someone must always read them)
//! and folds them into two `watch` channels: the main frame's navigation state and the network
//! activity. Waiting methods (`page.goto`, `page.waitFor`) subscribe to these instead of polling.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use base64::Engine;
use chromiumoxide::Page;
use serde_json::{Value, json};

use futures_util::stream::{BoxStream, SelectAll};
use futures_util::{FutureExt, StreamExt};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use super::cdp;
use super::events::PageEvent;
use super::signals::{ConsoleEntry, PageError, PendingRequest, Signals};

/// The main frame's current document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NavState {
    /// Chromium's id for the current document load; changes on every cross-document navigation.
    pub loader_id: String,
    pub url: String,
    pub dom_content_loaded: bool,
    pub loaded: bool,
    /// (request id, HTTP status) of the last main-frame document response.
    pub document_status: Option<(String, u16)>,
    /// The renderer process died.
    pub crashed: bool,
    /// The last few loader ids, oldest first, to tell whether a document was replaced.
    pub history: VecDeque<String>,
    /// How many main-frame document requests have started, and the latest one's id (which is
    /// also the loader id of the document it will become).
    pub document_requests: u64,
    pub last_document_request: String,
    /// How many navigations of the main frame the page has asked for (links, forms, scripts).
    pub navigation_requests: u64,
    /// Main-frame document requests that failed: (request id, error text), newest last.
    pub failed_documents: VecDeque<(String, String)>,
}

/// How many past loader ids [`NavState::history`] keeps.
const HISTORY: usize = 16;

impl NavState {
    /// True once `loader`'s document was committed and then replaced by a later one.
    pub fn replaced(&self, loader: &str) -> bool {
        self.history.iter().position(|l| l == loader).is_some_and(|i| i + 1 < self.history.len())
    }

    /// The error text if the document request `request` failed.
    pub fn failure_of(&self, request: &str) -> Option<&str> {
        self.failed_documents.iter().find(|(id, _)| id == request).map(|(_, e)| e.as_str())
    }
}

/// Network activity of the page.
#[derive(Debug, Clone, PartialEq)]
pub struct NetState {
    pub in_flight: usize,
    /// When a request last started or ended.
    pub last_activity: Instant,
}

/// The receiving side, held by the session.
#[derive(Clone)]
pub struct PageWatch {
    pub nav: watch::Receiver<NavState>,
    pub net: watch::Receiver<NetState>,
    /// The last request held by Fetch interception: (request id, URL).
    pub paused: watch::Receiver<Option<(String, String)>>,
    /// Console, page errors and network entries waiting to be pulled.
    pub signals: Arc<Mutex<Signals>>,
}

/// Requests that ended before we saw them start (events come through separate channels, so their
/// order across channels is not guaranteed). Bounded; old entries are forgotten.
const EARLY_ENDS_REMEMBERED: usize = 512;

/// The pump's side: folds events into the watch channels.
pub struct PageTracker {
    main_frame: String,
    nav: watch::Sender<NavState>,
    net: watch::Sender<NetState>,
    paused: watch::Sender<Option<(String, String)>>,
    signals: Arc<Mutex<Signals>>,
    /// Fetches error response bodies; absent in unit tests.
    page: Option<Page>,
    in_flight: HashSet<String>,
    ended_early: VecDeque<String>,
}

impl PageTracker {
    pub fn new(main_frame: String) -> (Self, PageWatch) {
        let (nav, nav_rx) = watch::channel(NavState::default());
        let (net, net_rx) = watch::channel(NetState { in_flight: 0, last_activity: Instant::now() });
        let (paused, paused_rx) = watch::channel(None);
        let signals = Arc::new(Mutex::new(Signals::default()));
        let tracker = Self {
            main_frame,
            nav,
            net,
            paused,
            signals: signals.clone(),
            page: None,
            in_flight: HashSet::new(),
            ended_early: VecDeque::new(),
        };
        (tracker, PageWatch { nav: nav_rx, net: net_rx, paused: paused_rx, signals })
    }

    /// Lets the tracker fetch error response bodies from `page`.
    pub fn with_page(mut self, page: Page) -> Self {
        self.page = Some(page);
        self
    }

    fn signals(&self) -> std::sync::MutexGuard<'_, Signals> {
        self.signals.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn apply(&mut self, event: PageEvent) {
        tracing::trace!(?event, "page event");
        match event {
            PageEvent::Lifecycle { frame_id, loader_id, name } if frame_id == self.main_frame => {
                self.nav.send_modify(|nav| {
                    if nav.loader_id != loader_id {
                        if nav.history.len() == HISTORY {
                            nav.history.pop_front();
                        }
                        nav.history.push_back(loader_id.clone());
                        nav.loader_id = loader_id;
                        nav.dom_content_loaded = false;
                        nav.loaded = false;
                    }
                    match name.as_str() {
                        "DOMContentLoaded" => nav.dom_content_loaded = true,
                        "load" => {
                            nav.dom_content_loaded = true;
                            nav.loaded = true;
                        }
                        _ => {}
                    }
                });
            }
            PageEvent::FrameNavigated { frame_id, parent_id: None, url, .. } if frame_id == self.main_frame => {
                self.nav.send_modify(|nav| nav.url = url);
            }
            PageEvent::ResponseReceived { request_id, frame_id, resource_type, status, mime_type } => {
                if resource_type == "Document" && frame_id.as_deref() == Some(self.main_frame.as_str()) {
                    self.nav.send_modify(|nav| nav.document_status = Some((request_id.clone(), status)));
                }
                self.signals().response(&request_id, status, mime_type);
            }
            PageEvent::RequestStarted { request_id, frame_id, resource_type, url, method } => {
                let pending = PendingRequest {
                    url,
                    method,
                    resource_type: resource_type.clone(),
                    status: None,
                    mime_type: String::new(),
                };
                self.signals().request_started(request_id.clone(), pending);
                if resource_type == "Document" && frame_id.as_deref() == Some(self.main_frame.as_str()) {
                    self.nav.send_modify(|nav| {
                        nav.document_requests += 1;
                        nav.last_document_request = request_id.clone();
                    });
                }
                if let Some(pos) = self.ended_early.iter().position(|id| *id == request_id) {
                    self.ended_early.remove(pos);
                } else if self.in_flight.insert(request_id) {
                    self.publish_net();
                }
            }
            PageEvent::RequestFailed { request_id, error_text } => {
                let is_document = self.nav.borrow().last_document_request == request_id;
                if is_document {
                    self.nav.send_modify(|nav| {
                        if nav.failed_documents.len() == HISTORY {
                            nav.failed_documents.pop_front();
                        }
                        nav.failed_documents.push_back((request_id.clone(), error_text.clone()));
                    });
                }
                self.signals().request_failed(&request_id, error_text);
                self.request_ended(request_id);
            }
            PageEvent::RequestFinished { request_id } => {
                let wants_body = self.signals().request_finished(&request_id);
                if wants_body {
                    self.fetch_body(request_id.clone());
                }
                self.request_ended(request_id);
            }
            PageEvent::Console { kind, text, url, line } => {
                self.signals().console(ConsoleEntry { kind, text, url, line });
            }
            PageEvent::Exception { message, stack } => self.signals().page_error(PageError { message, stack }),
            PageEvent::NavigationRequested { frame_id, disposition, url }
                if frame_id == self.main_frame && disposition == "currentTab" =>
            {
                // A link to a fragment of the same document loads nothing.
                let base = |u: &str| u.split('#').next().unwrap_or_default().to_owned();
                let same_document = url.contains('#') && base(&url) == base(&self.nav.borrow().url);
                if !same_document {
                    self.nav.send_modify(|nav| nav.navigation_requests += 1);
                }
            }
            PageEvent::Crashed => self.nav.send_modify(|nav| nav.crashed = true),
            PageEvent::RequestPaused { request_id, url } => {
                self.paused.send_replace(Some((request_id, url)));
            }
            _ => {}
        }
    }

    /// Fetches an error response's body now, before Chromium evicts it, into the signals.
    fn fetch_body(&self, request_id: String) {
        let Some(page) = self.page.clone() else {
            self.signals().body(&request_id, None);
            return;
        };
        let signals = self.signals.clone();
        tokio::spawn(async move {
            let deadline = Instant::now() + std::time::Duration::from_secs(5);
            let answer =
                cdp::call(&page, "Network.getResponseBody", json!({ "requestId": request_id }), deadline).await;
            let body = answer.ok().and_then(|a| {
                let text = a.get("body")?.as_str()?;
                if a.get("base64Encoded").and_then(Value::as_bool) == Some(true) {
                    let bytes = base64::engine::general_purpose::STANDARD.decode(text).ok()?;
                    Some(String::from_utf8_lossy(&bytes).into_owned())
                } else {
                    Some(text.to_owned())
                }
            });
            signals.lock().unwrap_or_else(|p| p.into_inner()).body(&request_id, body);
        });
    }

    fn request_ended(&mut self, request_id: String) {
        if self.in_flight.remove(&request_id) {
            self.publish_net();
        } else {
            if self.ended_early.len() == EARLY_ENDS_REMEMBERED {
                self.ended_early.pop_front();
            }
            self.ended_early.push_back(request_id);
        }
    }

    fn publish_net(&self) {
        let in_flight = self.in_flight.len();
        self.net.send_replace(NetState { in_flight, last_activity: Instant::now() });
    }

    /// Drains `events` until every stream has ended (the page is gone). A message on `barriers`
    /// is answered once every event already delivered has been applied.
    pub async fn run(
        mut self,
        mut events: SelectAll<BoxStream<'static, PageEvent>>,
        mut barriers: mpsc::UnboundedReceiver<oneshot::Sender<()>>,
    ) {
        loop {
            tokio::select! {
                event = events.next() => match event {
                    Some(event) => self.apply(event),
                    None => break,
                },
                Some(done) = barriers.recv() => {
                    while let Some(Some(event)) = events.next().now_or_never() {
                        self.apply(event);
                    }
                    let _ = done.send(());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lifecycle(loader: &str, name: &str) -> PageEvent {
        PageEvent::Lifecycle { frame_id: "main".into(), loader_id: loader.into(), name: name.into() }
    }

    fn started(id: &str) -> PageEvent {
        PageEvent::RequestStarted {
            request_id: id.into(),
            frame_id: Some("other".into()),
            resource_type: "Fetch".into(),
            url: "http://x/".into(),
            method: "GET".into(),
        }
    }

    #[test]
    fn a_failed_main_document_request_is_remembered() {
        let (mut t, w) = PageTracker::new("main".into());
        t.apply(PageEvent::RequestStarted {
            request_id: "D1".into(),
            frame_id: Some("main".into()),
            resource_type: "Document".into(),
            url: "http://x/".into(),
            method: "GET".into(),
        });
        assert_eq!(w.nav.borrow().document_requests, 1);
        t.apply(PageEvent::RequestFailed { request_id: "D1".into(), error_text: "net::ERR_CONNECTION_REFUSED".into() });
        assert_eq!(w.nav.borrow().failure_of("D1"), Some("net::ERR_CONNECTION_REFUSED"));
        assert_eq!(w.net.borrow().in_flight, 0);
    }

    #[test]
    fn a_new_loader_resets_the_load_flags() {
        let (mut t, w) = PageTracker::new("main".into());
        t.apply(lifecycle("L1", "init"));
        t.apply(lifecycle("L1", "load"));
        assert!(w.nav.borrow().loaded);
        t.apply(lifecycle("L2", "init"));
        let nav = w.nav.borrow().clone();
        assert_eq!(nav.loader_id, "L2");
        assert!(!nav.loaded && !nav.dom_content_loaded);
    }

    #[test]
    fn a_document_counts_as_replaced_once_a_later_one_commits() {
        let (mut t, w) = PageTracker::new("main".into());
        t.apply(lifecycle("L1", "init"));
        assert!(!w.nav.borrow().replaced("L1"));
        t.apply(lifecycle("L2", "init"));
        assert!(w.nav.borrow().replaced("L1"));
        assert!(!w.nav.borrow().replaced("L2"));
        assert!(!w.nav.borrow().replaced("never-seen"));
    }

    #[test]
    fn subframe_lifecycle_is_ignored() {
        let (mut t, w) = PageTracker::new("main".into());
        t.apply(PageEvent::Lifecycle { frame_id: "child".into(), loader_id: "X".into(), name: "load".into() });
        assert!(!w.nav.borrow().loaded);
    }

    #[test]
    fn in_flight_counts_requests_even_when_the_end_arrives_first() {
        let (mut t, w) = PageTracker::new("main".into());
        t.apply(started("a"));
        t.apply(started("b"));
        assert_eq!(w.net.borrow().in_flight, 2);
        t.apply(PageEvent::RequestFinished { request_id: "a".into() });
        // "c" ends before its start is seen: it must not stay in flight forever.
        t.apply(PageEvent::RequestFailed { request_id: "c".into(), error_text: "x".into() });
        t.apply(started("c"));
        t.apply(PageEvent::RequestFailed { request_id: "b".into(), error_text: "x".into() });
        assert_eq!(w.net.borrow().in_flight, 0);
    }

    #[test]
    fn a_redirect_hop_does_not_count_twice() {
        let (mut t, w) = PageTracker::new("main".into());
        t.apply(started("r"));
        t.apply(started("r"));
        t.apply(PageEvent::RequestFinished { request_id: "r".into() });
        assert_eq!(w.net.borrow().in_flight, 0);
    }
}
