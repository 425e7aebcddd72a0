//! What a session knows about its page between calls, kept current by one pump task per page.
//!
//! The pump drains the page's CDP event streams (they are unbounded: someone must always read
//! them), puts each request's events back in order (`reorder`), and folds them into two `watch`
//! channels — the main frame's navigation state and the network activity — and the signals
//! buffers. Waiting methods (`page.goto`, `page.waitFor`) subscribe to the channels instead of
//! polling.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use base64::Engine;
use futures_util::stream::{BoxStream, SelectAll};
use futures_util::{FutureExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use super::chooser_hook::ChooserHook;
use super::dialog_hook::{self, DialogHook};
use super::download_log::DownloadLog;
use super::events::{CodeLocation, PageEvent};
use super::live_feed::{LiveEvent, LiveKind};
use super::popup_log::{PopupLog, tab_id};
use super::reorder::{Ending, Ordered, Reorder};
use super::route_table::{AuthAnswer, Decision, RouteTable};
use super::signals::{
    ConsoleEntry, Level, Origin, PageError, PendingRequest, Signals, format_location, is_browser_own,
};
use super::sources::{self, SourceCache};
use crate::browser::chromium::cdp;
use crate::egress::failures::{BLOCKED_BY_POLICY, Failure, FailureLog};

/// Why a main-frame document request failed.
#[derive(Debug, Clone, PartialEq)]
pub enum DocumentFailure {
    /// The egress policy refused it; the proxy's reason, when it gave one.
    BlockedByPolicy(Option<String>),
    /// A network error (`net::ERR_CONNECTION_REFUSED` …), as Chromium or the proxy reported it.
    Network(String),
}

impl DocumentFailure {
    /// From the failure the egress proxy or Chromium named, and the proxy's detail.
    fn from_failure(failure: String, detail: Option<String>) -> Self {
        if failure == BLOCKED_BY_POLICY { Self::BlockedByPolicy(detail) } else { Self::Network(failure) }
    }
}

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
    /// Main-frame document requests that failed, newest last.
    pub failed_documents: VecDeque<(String, DocumentFailure)>,
}

/// How many past loader ids [`NavState::history`] keeps.
const HISTORY: usize = 16;

impl NavState {
    /// True once `loader`'s document was committed and then replaced by a later one.
    pub fn replaced(&self, loader: &str) -> bool {
        self.history.iter().position(|l| l == loader).is_some_and(|i| i + 1 < self.history.len())
    }

    /// Why the document request `request` failed, if it did.
    pub fn failure_of(&self, request: &str) -> Option<&DocumentFailure> {
        self.failed_documents.iter().find(|(id, _)| id == request).map(|(_, e)| e)
    }
}

/// Network activity of the page.
#[derive(Debug, Clone, PartialEq)]
pub struct NetState {
    pub in_flight: usize,
    /// When a request last started or ended.
    pub last_activity: Instant,
}

/// The receiving side, held by the page handle.
#[derive(Clone)]
pub struct PageWatch {
    pub nav: watch::Receiver<NavState>,
    pub net: watch::Receiver<NetState>,
    /// The last request held by Fetch interception: (request id, URL).
    pub paused: watch::Receiver<Option<(String, String)>>,
    /// Console, page errors and network entries waiting to be pulled.
    pub signals: Arc<Mutex<Signals>>,
    /// Script sources fetched so far, shared with `page.source`.
    pub sources: Arc<Mutex<SourceCache>>,
    /// Script id → URL, for the scripts the Debugger domain reported (see `inspect`).
    pub scripts: Arc<Mutex<HashMap<String, String>>>,
    /// How the next dialog is answered (`dialog.arm`).
    pub dialogs: DialogHook,
    /// Mocked and aborted requests (`network.route`).
    pub routes: RouteTable,
    /// The files the next file chooser gets (`fileChooser.arm`).
    pub chooser: ChooserHook,
    /// Downloads the page began.
    pub downloads: DownloadLog,
}

impl PageWatch {
    pub fn signals(&self) -> std::sync::MutexGuard<'_, Signals> {
        self.signals.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn sources(&self) -> std::sync::MutexGuard<'_, SourceCache> {
        self.sources.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn scripts(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.scripts.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Script ids remembered; beyond this the map starts over.
const MAX_SCRIPTS: usize = 10_000;

/// Lines shown each side of the line a page error or console error points at.
const SOURCE_CONTEXT: u32 = 2;

/// The pump's side: folds events into the watch channels and the signals.
pub struct PageTracker {
    main_frame: String,
    nav: watch::Sender<NavState>,
    net: watch::Sender<NetState>,
    paused: watch::Sender<Option<(String, String)>>,
    signals: Arc<Mutex<Signals>>,
    sources: Arc<Mutex<SourceCache>>,
    scripts: Arc<Mutex<HashMap<String, String>>>,
    /// Fetches response bodies, posted data and script sources; absent in unit tests.
    page: Option<chromiumoxide::Page>,
    /// Requests started and not yet ended: request id → the loader id of their document.
    in_flight: HashMap<String, String>,
    /// Puts each request's events back in order.
    reorder: Reorder,
    /// What the session's egress proxy failed to deliver, and why.
    egress: Arc<FailureLog>,
    dialogs: DialogHook,
    routes: RouteTable,
    chooser: ChooserHook,
    downloads: DownloadLog,
    /// The session's popups waiting to be adopted as tabs.
    popups: PopupLog,
    /// DOWNLOAD_MAX_BYTES, and the browser context Chromium cancels an oversized download in.
    download_cap: u64,
    context_id: String,
    /// Popups announced without a URL, waiting for their `Page.windowOpen` (tab ids) …
    unnamed_popups: VecDeque<String>,
    /// … and windows opened whose popup was not announced yet (URLs).
    window_opens: VecDeque<String>,
}

/// Popup announcements kept waiting for their other half.
const POPUP_HALVES: usize = 8;

fn remember(queue: &mut VecDeque<String>, item: String) {
    if queue.len() == POPUP_HALVES {
        queue.pop_front();
    }
    queue.push_back(item);
}

impl PageTracker {
    pub fn new(main_frame: String) -> (Self, PageWatch) {
        let (nav, nav_rx) = watch::channel(NavState::default());
        let (net, net_rx) = watch::channel(NetState { in_flight: 0, last_activity: Instant::now() });
        let (paused, paused_rx) = watch::channel(None);
        let signals = Arc::new(Mutex::new(Signals::default()));
        let sources = Arc::new(Mutex::new(SourceCache::default()));
        let scripts = Arc::new(Mutex::new(HashMap::new()));
        let dialogs = DialogHook::default();
        let routes = RouteTable::default();
        let chooser = ChooserHook::default();
        let downloads = DownloadLog::default();
        let tracker = Self {
            main_frame,
            nav,
            net,
            paused,
            signals: signals.clone(),
            sources: sources.clone(),
            scripts: scripts.clone(),
            page: None,
            in_flight: HashMap::new(),
            reorder: Reorder::default(),
            egress: Arc::default(),
            dialogs: dialogs.clone(),
            routes: routes.clone(),
            chooser: chooser.clone(),
            downloads: downloads.clone(),
            popups: PopupLog::default(),
            download_cap: u64::MAX,
            context_id: String::new(),
            unnamed_popups: VecDeque::new(),
            window_opens: VecDeque::new(),
        };
        let watch = PageWatch {
            nav: nav_rx,
            net: net_rx,
            paused: paused_rx,
            signals,
            sources,
            scripts,
            dialogs,
            routes,
            chooser,
            downloads,
        };
        (tracker, watch)
    }

    /// Lets the tracker report requests the egress proxy did not deliver as the failures they are.
    pub fn with_egress(mut self, egress: Arc<FailureLog>) -> Self {
        self.egress = egress;
        self
    }

    /// Cancels the page's downloads once they grow past `cap` bytes.
    pub fn with_download_cap(mut self, cap: u64, context_id: String) -> Self {
        self.download_cap = cap;
        self.context_id = context_id;
        self
    }

    /// Files the popups this page opens where its session adopts them.
    pub fn with_popups(mut self, popups: PopupLog) -> Self {
        self.popups = popups;
        self
    }

    /// Lets the tracker fetch error response bodies from `page`.
    pub fn with_page(mut self, page: chromiumoxide::Page) -> Self {
        self.page = Some(page);
        self
    }

    fn signals(&self) -> std::sync::MutexGuard<'_, Signals> {
        self.signals.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn apply(&mut self, event: PageEvent) {
        // Only the kind: events carry page data (posted bodies, console text) that is never logged.
        tracing::trace!(event = event.kind(), "page event");
        for ordered in self.reorder.arrive(event) {
            self.apply_ordered(ordered);
        }
    }

    fn apply_ordered(&mut self, ordered: Ordered) {
        match ordered {
            Ordered::Started(PageEvent::RequestStarted(start)) => {
                let request_id = start.request_id;
                let is_document =
                    start.resource_type == "Document" && start.frame_id.as_deref() == Some(self.main_frame.as_str());
                let fetch_post_data = start.has_post_data && start.post_data.is_none();
                let pending = PendingRequest {
                    seq: 0,
                    browser_own: is_browser_own(&start.resource_type, &start.url),
                    url: start.url,
                    method: start.method,
                    resource_type: start.resource_type,
                    status: None,
                    mime_type: String::new(),
                    started: Instant::now(),
                    start_ts: start.timestamp,
                    initiator: start.initiator.as_ref().map(format_location),
                    request_body: start.post_data,
                };
                self.signals().request_started(request_id.clone(), pending);
                if fetch_post_data {
                    self.fetch_post_data(request_id.clone());
                }
                let loader_id = start.loader_id;
                if is_document {
                    self.nav.send_modify(|nav| {
                        nav.document_requests += 1;
                        nav.last_document_request = request_id.clone();
                    });
                }
                if self.in_flight.insert(request_id, loader_id).is_none() {
                    self.publish_net();
                }
            }
            Ordered::Responded(PageEvent::ResponseReceived {
                request_id, frame_id, failure: Some(failure), ..
            }) => {
                let is_document = frame_id.as_deref() == Some(self.main_frame.as_str())
                    && self.nav.borrow().last_document_request == request_id;
                let detail = self.egress_failure_of(&request_id).map(|f| f.detail);
                self.not_delivered(&request_id, is_document, failure, detail, 0.0);
            }
            Ordered::Responded(PageEvent::ResponseReceived {
                request_id,
                frame_id,
                resource_type,
                status,
                mime_type,
                at,
                ..
            }) => {
                if resource_type == "Document" && frame_id.as_deref() == Some(self.main_frame.as_str()) {
                    self.nav.send_modify(|nav| nav.document_status = Some((request_id.clone(), status)));
                }
                self.signals().response(&request_id, status, mime_type, at);
            }
            Ordered::Started(_) | Ordered::Responded(_) => {}
            Ordered::Settled { request_id } => {
                if self.in_flight.remove(&request_id).is_some() {
                    self.publish_net();
                }
            }
            Ordered::Ended { request_id, ending, timestamp } => self.record_end(&request_id, ending, timestamp),
            Ordered::Other(event) => self.apply_other(event),
        }
    }

    fn apply_other(&mut self, event: PageEvent) {
        match event {
            PageEvent::Lifecycle { frame_id, loader_id, name } if frame_id == self.main_frame => {
                if self.nav.borrow().loader_id != loader_id {
                    self.forget_requests_of_old_documents(&loader_id);
                }
                self.nav.send_modify(|nav| {
                    if nav.loader_id != loader_id {
                        if nav.history.len() == HISTORY {
                            nav.history.pop_front();
                        }
                        nav.history.push_back(loader_id.clone());
                        nav.loader_id = loader_id.clone();
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
                let signals = self.signals();
                let mut event = LiveEvent::new(LiveKind::Navigation, false, signals.redactor.text(&url));
                event.url = Some(event.text.clone());
                signals.live.publish(event);
                drop(signals);
                self.nav.send_modify(|nav| nav.url = url);
            }
            PageEvent::Console { kind, text, location, at } => {
                // Errors get their source line; other levels are chatter.
                let wants_source = Level::of(&kind) == Level::Error && location.is_some();
                let entry = ConsoleEntry {
                    seq: 0,
                    method: kind,
                    kind: Origin::Console,
                    text,
                    location: location.clone(),
                    source: None,
                    source_pending: wants_source && self.page.is_some(),
                };
                let seq = self.signals().console_at(entry, at);
                if let (true, Some(at)) = (wants_source, location) {
                    self.fetch_source(seq, at);
                }
            }
            PageEvent::Exception { origin, message, stack, location, at: thrown } => {
                let error = PageError {
                    seq: 0,
                    kind: origin.into(),
                    message,
                    location: location.clone(),
                    source: None,
                    stack,
                    source_pending: location.is_some() && self.page.is_some(),
                };
                let seq = self.signals().page_error_at(error, thrown);
                if let Some(at) = location {
                    self.fetch_source(seq, at);
                }
            }
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
            PageEvent::Crashed => {
                self.nav.send_modify(|nav| nav.crashed = true);
                let crashed = LiveEvent::new(LiveKind::Crash, true, "the page's renderer process crashed".into());
                self.signals().live.publish(crashed);
            }
            PageEvent::RequestPaused { request_id, url } if !self.routes.is_empty() => {
                self.answer_paused(request_id, &url)
            }
            PageEvent::RequestPaused { request_id, url } => {
                self.paused.send_replace(Some((request_id, url)));
            }
            PageEvent::FileChooserOpened { backend_node_id } => self.answer_chooser(backend_node_id),
            PageEvent::AuthRequired { request_id, url, scheme, realm, .. } => {
                let asked = format!("HTTP {scheme} authentication for {url} (realm {realm:?})");
                let text = match self.routes.auth_answer(&request_id) {
                    AuthAnswer::Provided(user) => format!("{asked} answered with httpCredentials ({user})"),
                    AuthAnswer::Cancelled(why) => format!("{asked} cancelled: {why}"),
                };
                self.note(Origin::Dialog, text);
            }
            PageEvent::DownloadBegun { guid, url, name } => {
                self.note(Origin::Download, format!("download {name} started"));
                self.downloads.begun(guid, name, url);
            }
            PageEvent::DownloadProgress { guid, received, state } => {
                if state == "inProgress" && received > self.download_cap && self.downloads.mark_over_cap(&guid) {
                    self.cancel_download(guid.clone());
                }
                if let Some(done) = self.downloads.progress(&guid, received, &state) {
                    let how = match done.state.as_str() {
                        "completed" => format!("finished: {} bytes", done.bytes),
                        "canceled" if done.over_cap => format!(
                            "cancelled at {} bytes: larger than DOWNLOAD_MAX_BYTES ({} bytes)",
                            done.bytes, self.download_cap
                        ),
                        _ => done.state,
                    };
                    self.note(Origin::Download, format!("download {} {how}", done.name));
                }
            }
            // A popup is announced twice, in either order: by its target (its tab, often with no URL
            // yet) and by the opener's `Page.windowOpen` (its URL). It is noted once both are in.
            PageEvent::PopupOpened { target_id, url } => {
                let tab = tab_id(&target_id);
                self.popups.opened(target_id);
                if !(url.is_empty() || url == "about:blank") {
                    self.note_popup(&tab, &url);
                } else if let Some(url) = self.window_opens.pop_front() {
                    self.note_popup(&tab, &url);
                } else {
                    remember(&mut self.unnamed_popups, tab);
                }
            }
            PageEvent::WindowOpened { url } => match self.unnamed_popups.pop_front() {
                Some(tab) => self.note_popup(&tab, &url),
                None => remember(&mut self.window_opens, url),
            },
            PageEvent::DialogOpening { kind, message, default_prompt } => {
                self.answer_dialog(&kind, &message, default_prompt)
            }
            PageEvent::ScriptParsed { script_id, url } if !url.is_empty() => {
                let mut scripts = self.scripts.lock().unwrap_or_else(|p| p.into_inner());
                if scripts.len() >= MAX_SCRIPTS {
                    scripts.clear();
                }
                scripts.insert(script_id, url);
            }
            _ => {}
        }
    }

    /// What the egress proxy recorded for a pending request's host, if it failed to deliver one.
    fn egress_failure_of(&self, request_id: &str) -> Option<Failure> {
        let url = self.signals().pending_url(request_id)?.to_owned();
        self.egress.failure_for(&url)
    }

    /// Records a request the egress proxy did not deliver as failed with the proxy's `failure`
    /// (`blocked_by_policy`, `net::ERR_CONNECTION_REFUSED` …), as a direct connection would show.
    fn not_delivered(
        &mut self,
        request_id: &str,
        is_document: bool,
        failure: String,
        detail: Option<String>,
        end_ts: f64,
    ) {
        if is_document {
            self.document_failed(request_id, DocumentFailure::from_failure(failure.clone(), detail));
        }
        self.signals().request_failed(request_id, failure, end_ts);
    }

    fn document_failed(&self, request_id: &str, failure: DocumentFailure) {
        self.nav.send_modify(|nav| {
            if nav.failed_documents.len() == HISTORY {
                nav.failed_documents.pop_front();
            }
            nav.failed_documents.push_back((request_id.to_owned(), failure));
        });
    }

    /// Captures a response's body now, before Chromium evicts it, into the signals.
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

    /// Posted data Chromium left out of the event (large bodies) is asked for separately.
    fn fetch_post_data(&self, request_id: String) {
        let Some(page) = self.page.clone() else { return };
        let signals = self.signals.clone();
        tokio::spawn(async move {
            let deadline = Instant::now() + std::time::Duration::from_secs(5);
            let params = json!({ "requestId": request_id });
            if let Ok(answer) = cdp::call(&page, "Network.getRequestPostData", params, deadline).await
                && let Some(text) = answer.get("postData").and_then(Value::as_str)
            {
                signals.lock().unwrap_or_else(|p| p.into_inner()).set_request_body(&request_id, text.to_owned());
            }
        });
    }

    /// Answers a request Chromium holds for `network.route`: mocked, aborted, or let go on.
    fn answer_paused(&self, request_id: String, url: &str) {
        let Some(page) = self.page.clone() else { return };
        let (method, params) = match self.routes.decide(url) {
            Decision::Continue => ("Fetch.continueRequest", json!({ "requestId": request_id })),
            Decision::Abort => {
                ("Fetch.failRequest", json!({ "requestId": request_id, "errorReason": "BlockedByClient" }))
            }
            Decision::Fulfill { status, headers, body } => {
                let headers: Vec<Value> = headers.iter().map(|(n, v)| json!({ "name": n, "value": v })).collect();
                let body = base64::engine::general_purpose::STANDARD.encode(body);
                let params = json!({ "requestId": request_id, "responseCode": status, "responseHeaders": headers, "body": body });
                ("Fetch.fulfillRequest", params)
            }
        };
        tokio::spawn(async move {
            let deadline = Instant::now() + std::time::Duration::from_secs(5);
            if let Err(err) = cdp::call(&page, method, params, deadline).await {
                tracing::warn!(%err, method, "a routed request could not be answered");
            }
        });
    }

    /// Asks Chromium to stop a download that grew past the cap (it then reports it `canceled`).
    fn cancel_download(&self, guid: String) {
        let Some(page) = self.page.clone() else { return };
        let params = json!({ "guid": guid, "browserContextId": self.context_id });
        tokio::spawn(async move {
            let deadline = Instant::now() + std::time::Duration::from_secs(5);
            if let Err(err) = cdp::call(&page, "Browser.cancelDownload", params, deadline).await {
                tracing::warn!(%err, "an oversized download could not be cancelled");
            }
        });
    }

    /// Files a line about something the page did besides logging (a dialog, a download).
    fn note(&self, kind: Origin, text: String) {
        self.signals().console(ConsoleEntry {
            seq: 0,
            method: "warning".into(),
            kind,
            text,
            location: None,
            source: None,
            source_pending: false,
        });
    }

    fn note_popup(&self, tab: &str, url: &str) {
        self.note(
            Origin::Popup,
            format!("popup opened as tab {tab}: {url} (its errors and requests are its own: pass tab_id)"),
        );
    }

    /// Gives an opened file chooser the armed files (or nothing), and files it in the logs.
    fn answer_chooser(&self, backend_node_id: Option<i64>) {
        let arm = self.chooser.take(Instant::now());
        let text = match (&arm, backend_node_id) {
            (Some(arm), Some(_)) => format!("file chooser answered with {} (armed)", arm.names.join(", ")),
            (Some(_), None) => "file chooser not for a file input: nothing chosen".to_owned(),
            (None, _) => "file chooser opened with no fileChooser.arm: nothing chosen".to_owned(),
        };
        self.note(Origin::Dialog, text);
        let (Some(arm), Some(node), Some(page)) = (arm, backend_node_id, self.page.clone()) else { return };
        tokio::spawn(async move {
            let deadline = Instant::now() + std::time::Duration::from_secs(5);
            let params = json!({ "files": arm.paths, "backendNodeId": node });
            if let Err(err) = cdp::call(&page, "DOM.setFileInputFiles", params, deadline).await {
                tracing::warn!(%err, "the file chooser could not be answered");
            }
        });
    }

    /// Answers a dialog that just opened (as armed, or dismissed) and files it in the logs.
    fn answer_dialog(&self, kind: &str, message: &str, default_prompt: String) {
        let answer = self.dialogs.answer(Instant::now());
        let text = dialog_hook::describe(kind, message, &answer);
        self.note(Origin::Dialog, text);
        let Some(page) = self.page.clone() else { return };
        let mut params = json!({ "accept": answer.accept });
        if answer.accept && kind == "prompt" {
            params["promptText"] = json!(answer.prompt_text.unwrap_or(default_prompt));
        }
        tokio::spawn(async move {
            let deadline = Instant::now() + std::time::Duration::from_secs(5);
            if let Err(err) = cdp::call(&page, "Page.handleJavaScriptDialog", params, deadline).await {
                tracing::warn!(%err, "a dialog could not be answered");
            }
        });
    }

    /// Adds the source lines around `at` to the console entry or page error `seq`: from the
    /// page's source cache, or fetched from the browser's copy of the script.
    fn fetch_source(&self, seq: u64, at: CodeLocation) {
        let cached = self.sources.lock().unwrap_or_else(|p| p.into_inner()).get(&at.url);
        if let Some(lines) = cached {
            let source = sources::excerpt(&lines, at.line, Some(at.column), SOURCE_CONTEXT);
            self.signals().set_source(seq, source);
            return;
        }
        let Some(page) = self.page.clone() else { return };
        let (signals, cache, main_frame) = (self.signals.clone(), self.sources.clone(), self.main_frame.clone());
        let mut nav = self.nav.subscribe();
        tokio::spawn(async move {
            let deadline = Instant::now() + std::time::Duration::from_secs(5);
            let mut text = sources::text_of(&page, &main_frame, &at.url, &signals, deadline).await;
            if text.is_none() {
                // An inline script of a document still loading: its text is there once the
                // document has loaded and its body has been captured.
                let loaded = tokio::time::timeout_at(deadline, async {
                    nav.wait_for(|n| n.loaded || n.crashed).await.map(|_| ())
                })
                .await;
                let until = (Instant::now() + std::time::Duration::from_secs(1)).min(deadline);
                while matches!(loaded, Ok(Ok(()))) && text.is_none() && Instant::now() < until {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    text = sources::text_of(&page, &main_frame, &at.url, &signals, deadline).await;
                }
            }
            let source = text.and_then(|text| {
                let lines = cache.lock().unwrap_or_else(|p| p.into_inner()).insert(&at.url, &text);
                sources::excerpt(&lines, at.line, Some(at.column), SOURCE_CONTEXT)
            });
            signals.lock().unwrap_or_else(|p| p.into_inner()).set_source(seq, source);
        });
    }

    /// A new main document committed: requests of earlier documents will not be reported ended
    /// (Chromium does not always say so, e.g. for a worker's script), so they stop counting.
    fn forget_requests_of_old_documents(&mut self, new_loader: &str) {
        let before = self.in_flight.len();
        let reorder = &mut self.reorder;
        self.in_flight.retain(|id, loader| {
            let keep = loader == new_loader || id == new_loader;
            if !keep {
                reorder.forget(id);
            }
            keep
        });
        if self.in_flight.len() != before {
            self.publish_net();
        }
    }

    /// Files a request's outcome in the signals (and the navigation state, for the main document).
    fn record_end(&mut self, request_id: &str, ending: Ending, end_ts: f64) {
        match ending {
            Ending::Finished => {
                if self.signals().request_finished(request_id, end_ts) {
                    self.fetch_body(request_id.to_owned());
                }
            }
            Ending::Failed(error_text) => {
                let is_document = self.nav.borrow().last_document_request == request_id;
                if let Some(egress) = self.egress_failure_of(request_id) {
                    self.not_delivered(request_id, is_document, egress.failure, Some(egress.detail), end_ts);
                } else {
                    if is_document {
                        self.document_failed(request_id, DocumentFailure::Network(error_text.clone()));
                    }
                    self.signals().request_failed(request_id, error_text, end_ts);
                }
            }
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
    use crate::browser::page::events::RequestStart;

    fn lifecycle(loader: &str, name: &str) -> PageEvent {
        PageEvent::Lifecycle { frame_id: "main".into(), loader_id: loader.into(), name: name.into() }
    }

    fn started(id: &str) -> PageEvent {
        PageEvent::RequestStarted(RequestStart {
            request_id: id.into(),
            loader_id: "L1".into(),
            frame_id: Some("other".into()),
            resource_type: "Fetch".into(),
            url: "http://x/".into(),
            method: "GET".into(),
            ..Default::default()
        })
    }

    #[test]
    fn a_failed_main_document_request_is_remembered() {
        let (mut t, w) = PageTracker::new("main".into());
        t.apply(PageEvent::RequestStarted(RequestStart {
            request_id: "D1".into(),
            loader_id: "D1".into(),
            frame_id: Some("main".into()),
            resource_type: "Document".into(),
            url: "http://x/".into(),
            method: "GET".into(),
            ..Default::default()
        }));
        assert_eq!(w.nav.borrow().document_requests, 1);
        t.apply(PageEvent::RequestFailed {
            request_id: "D1".into(),
            error_text: "net::ERR_CONNECTION_REFUSED".into(),
            timestamp: 1.0,
        });
        assert_eq!(
            w.nav.borrow().failure_of("D1"),
            Some(&DocumentFailure::Network("net::ERR_CONNECTION_REFUSED".into()))
        );
        assert_eq!(w.net.borrow().in_flight, 0);
    }

    #[test]
    fn a_redirect_hop_reported_after_its_chain_ended_is_not_in_flight() {
        let (mut t, w) = PageTracker::new("main".into());
        t.apply(started("R1"));
        t.apply(PageEvent::RequestFinished { request_id: "R1".into(), timestamp: 1.0 });
        // The redirect's second requestWillBeSent arrives late, on its own channel.
        t.apply(started("R1"));
        assert_eq!(w.net.borrow().in_flight, 0, "the chain already ended");
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
        t.apply(PageEvent::RequestFinished { request_id: "a".into(), timestamp: 1.0 });
        // "c" ends before its start is seen: it must not stay in flight forever.
        t.apply(PageEvent::RequestFailed { request_id: "c".into(), error_text: "x".into(), timestamp: 1.0 });
        t.apply(started("c"));
        t.apply(PageEvent::RequestFailed { request_id: "b".into(), error_text: "x".into(), timestamp: 1.0 });
        assert_eq!(w.net.borrow().in_flight, 0);
    }

    #[test]
    fn requests_of_an_old_document_stop_counting_once_a_new_one_commits() {
        let (mut t, w) = PageTracker::new("main".into());
        t.apply(lifecycle("L1", "init"));
        t.apply(started("worker-script"));
        assert_eq!(w.net.borrow().in_flight, 1);
        t.apply(lifecycle("L2", "init"));
        assert_eq!(w.net.borrow().in_flight, 0);
    }

    #[test]
    fn a_response_that_arrives_after_its_requests_end_is_still_reported() {
        let (mut t, w) = PageTracker::new("main".into());
        t.apply(started("r"));
        t.apply(PageEvent::RequestFinished { request_id: "r".into(), timestamp: 1.0 });
        assert_eq!(w.net.borrow().in_flight, 0, "the network is quiet once the request ended");
        t.apply(PageEvent::ResponseReceived {
            request_id: "r".into(),
            frame_id: None,
            resource_type: "Image".into(),
            status: 404,
            mime_type: "image/png".into(),
            failure: None,
            at: None,
        });
        let signals = w.signals.lock().unwrap();
        let entry = signals.network.iter().next().expect("the request is in the ring");
        assert_eq!(entry.status, Some(404));
    }

    #[test]
    fn a_failure_that_arrives_before_its_start_is_still_reported() {
        let (mut t, w) = PageTracker::new("main".into());
        t.apply(PageEvent::RequestFailed {
            request_id: "c".into(),
            error_text: "net::ERR_FAILED".into(),
            timestamp: 1.0,
        });
        t.apply(started("c"));
        let signals = w.signals.lock().unwrap();
        let entry = signals.network.iter().next().expect("the failed request is in the ring");
        assert_eq!((entry.url.as_str(), entry.failure.as_deref()), ("http://x/", Some("net::ERR_FAILED")));
    }

    #[test]
    fn a_request_the_egress_proxy_refused_is_reported_as_blocked_by_policy() {
        let log = Arc::new(FailureLog::default());
        log.record("x", 80, Some("http://x/"), BLOCKED_BY_POLICY, "http://x/ does not match".into());
        let (t, w) = PageTracker::new("main".into());
        let mut t = t.with_egress(log);
        t.apply(started("r"));
        t.apply(PageEvent::RequestFailed {
            request_id: "r".into(),
            error_text: "net::ERR_FAILED".into(),
            timestamp: 1.0,
        });
        let signals = w.signals.lock().unwrap();
        let entry = signals.network.iter().next().expect("the refused request is in the ring");
        assert_eq!(entry.failure.as_deref(), Some(BLOCKED_BY_POLICY));
    }

    #[test]
    fn a_redirect_hop_does_not_count_twice() {
        let (mut t, w) = PageTracker::new("main".into());
        t.apply(started("r"));
        t.apply(started("r"));
        t.apply(PageEvent::RequestFinished { request_id: "r".into(), timestamp: 1.0 });
        assert_eq!(w.net.borrow().in_flight, 0);
    }

    fn popup_notes(w: &PageWatch) -> Vec<String> {
        let signals = w.signals.lock().unwrap();
        signals.console.iter().filter(|e| e.kind == Origin::Popup).map(|e| e.text.clone()).collect()
    }

    #[test]
    fn a_popup_is_noted_once_with_its_url_whichever_announcement_comes_first() {
        let (t, w) = PageTracker::new("main".into());
        let popups = PopupLog::default();
        let mut t = t.with_popups(popups.clone());
        t.apply(PageEvent::PopupOpened { target_id: "AAAABBBBCCCC".into(), url: String::new() });
        assert!(popup_notes(&w).is_empty(), "no URL yet");
        t.apply(PageEvent::WindowOpened { url: "http://x/a".into() });
        t.apply(PageEvent::WindowOpened { url: "http://x/b".into() });
        t.apply(PageEvent::PopupOpened { target_id: "DDDDEEEEFFFF".into(), url: "about:blank".into() });
        assert_eq!(
            popup_notes(&w),
            vec![
                "popup opened as tab aaaabbbb: http://x/a (its errors and requests are its own: pass tab_id)"
                    .to_owned(),
                "popup opened as tab ddddeeee: http://x/b (its errors and requests are its own: pass tab_id)"
                    .to_owned()
            ]
        );
        assert_eq!(popups.take(), vec!["AAAABBBBCCCC".to_owned(), "DDDDEEEEFFFF".to_owned()]);
    }
}
