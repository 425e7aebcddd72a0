//! The reducer: every page event, in order, folded into the page's state — the timeline (in the
//! store), the main frame's navigation state and the network activity — and the decisions it
//! implies returned as [`Command`]s, never carried out here. No task, no lock, no I/O: it is
//! driven by the pump in production and by plain calls in the tests below.
//!
//! A request's life: started (a timeline entry, in flight) → answered (its status; the page acts
//! on it) → ended (finished, failed, cancelled by a navigation, or its body given up). An answer
//! whose body the page never reads (`fetch(…).then(r => r.ok)` on a `no-store` response: Chromium
//! never says "finished") stops counting as in flight once [`BODY_GRACE`] has passed after it, so
//! neither `networkidle` nor an action's settling waits for a body nobody reads.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::arms::{self, ChooserHook, DialogHook};
use super::bodies::is_text;
use super::clock::{Clock, now_ms};
use super::commands::{Command, Finding, PausedAnswer};
use super::download_log::DownloadLog;
use super::events::{CodeLocation, PageEvent, RequestStart};
use super::nav::{DocumentFailure, NavState, NetState};
use super::records::{self, Answer, ConsoleRecord, ErrorRecord, Outcome, Record, RequestRecord};
use super::reorder::{Ending, Ordered, Reorder};
use super::sources;
use super::store::Store;
use super::views::live::{LiveEvent, LiveKind};
use crate::browser::chromium::ids::{BrowserContextId, FetchRequestId, FrameId, LoaderId, RequestId};
use crate::browser::chromium::kinds::{Disposition, DownloadState, Level, Milestone, ResourceType};
use crate::browser::page::popup_log::{PopupLog, tab_id};
use crate::browser::page::route_table::{AuthAnswer, Decision, RouteTable};
use crate::egress::failures::{Failure, FailureLog};

/// How long after its answer a request whose body is not finished stops counting as in flight.
pub const BODY_GRACE: Duration = Duration::from_millis(500);
/// Lines shown each side of the line a page error or console error points at.
const SOURCE_CONTEXT: u32 = 2;
/// Popup announcements kept waiting for their other half.
const POPUP_HALVES: usize = 8;

/// What the reducer consults: the arms, the routes, the session's shared logs and limits.
#[derive(Clone, Default)]
pub struct Env {
    /// What the session's egress proxy failed to deliver, and why.
    pub egress: Arc<FailureLog>,
    pub dialogs: DialogHook,
    pub chooser: ChooserHook,
    pub routes: RouteTable,
    pub downloads: DownloadLog,
    /// The session's popups waiting to be adopted as tabs.
    pub popups: PopupLog,
    /// DOWNLOAD_MAX_BYTES, and the browser context Chromium cancels an oversized download in.
    pub download_cap: Option<u64>,
    pub context_id: BrowserContextId,
}

/// What applying events asks of the pump.
#[derive(Debug, Default)]
pub struct Outbox {
    pub commands: Vec<Command>,
    /// For live subscribers (secrets not yet masked).
    pub live: Vec<LiveEvent>,
    /// Requests just answered: to be looked at again once [`BODY_GRACE`] has passed.
    pub answered: Vec<RequestId>,
    /// The last request held by Fetch interception with no route to answer it: (id, URL).
    pub paused: Option<(FetchRequestId, String)>,
}

/// A request the reducer follows: its timeline entry, and how far the page had navigated when it
/// started (a request cut off by a later navigation is cancelled, not failed).
#[derive(Debug, Clone, Copy)]
struct Tracked {
    seq: u64,
    marks: (u64, u64),
}

#[derive(Debug, Clone)]
struct Flight {
    /// The document the request belongs to.
    loader: LoaderId,
    /// Its answer came (its body may not).
    answered: bool,
}

pub struct Reducer {
    main_frame: FrameId,
    nav: NavState,
    nav_dirty: bool,
    net: NetState,
    net_dirty: bool,
    /// Requests started and not yet settled.
    in_flight: HashMap<RequestId, Flight>,
    reorder: Reorder,
    requests: HashMap<RequestId, Tracked>,
    clock: Clock,
    env: Env,
    /// Popups announced without a URL, waiting for their `Page.windowOpen` (tab ids) …
    unnamed_popups: VecDeque<String>,
    /// … and windows opened whose popup was not announced yet (URLs).
    window_opens: VecDeque<String>,
}

impl Reducer {
    pub fn new(main_frame: FrameId, env: Env) -> Self {
        Self {
            main_frame,
            nav: NavState::default(),
            nav_dirty: false,
            net: NetState { in_flight: 0, last_activity: Instant::now() },
            net_dirty: false,
            in_flight: HashMap::new(),
            reorder: Reorder::default(),
            requests: HashMap::new(),
            clock: Clock::default(),
            env,
            unnamed_popups: VecDeque::new(),
            window_opens: VecDeque::new(),
        }
    }

    /// The navigation state, when it changed since the last call.
    pub fn nav_changed(&mut self) -> Option<&NavState> {
        std::mem::take(&mut self.nav_dirty).then_some(&self.nav)
    }

    /// The network activity, when it changed since the last call.
    pub fn net_changed(&mut self) -> Option<&NetState> {
        std::mem::take(&mut self.net_dirty).then_some(&self.net)
    }

    #[cfg(test)]
    pub fn nav(&self) -> &NavState {
        &self.nav
    }

    /// Applies one event as it arrived (events of a request are put back in order first).
    pub fn apply(&mut self, store: &mut Store, event: PageEvent, out: &mut Outbox) {
        // Only the kind: events carry page data (posted bodies, console text) that is never logged.
        tracing::trace!(event = event.kind(), "page event");
        for ordered in self.reorder.arrive(event) {
            self.apply_ordered(store, ordered, out);
        }
    }

    fn apply_ordered(&mut self, store: &mut Store, ordered: Ordered, out: &mut Outbox) {
        match ordered {
            Ordered::Started(PageEvent::RequestStarted(start)) => self.started(store, start, out),
            Ordered::Responded(PageEvent::ResponseReceived {
                request_id, frame_id, failure: Some(failure), ..
            }) => {
                let is_document =
                    frame_id.as_ref() == Some(&self.main_frame) && self.nav.last_document_request == request_id;
                let detail = self.egress_failure_of(store, &request_id).map(|f| f.detail);
                self.not_delivered(store, &request_id, is_document, failure, detail, now_ms(), out);
            }
            Ordered::Responded(PageEvent::ResponseReceived {
                request_id,
                frame_id,
                resource_type,
                status,
                mime_type,
                refreshes,
                at,
                timestamp,
                ..
            }) => {
                if resource_type == ResourceType::Document && frame_id.as_ref() == Some(&self.main_frame) {
                    self.nav.document_status = Some((request_id.clone(), status));
                    self.nav.refreshing = refreshes.then(|| request_id.document_loader());
                    self.nav_dirty = true;
                }
                // When the network stack had the answer (its wall time, earlier than the event's
                // own stamp): what a subscriber orders it by, ahead of what the page did with it.
                let received = at.map(|ms| ms as f64);
                let at = match (timestamp > 0.0, received) {
                    (true, _) => self.clock.wall(timestamp),
                    (false, Some(at)) => at,
                    (false, None) => now_ms(),
                };
                self.answered(store, &request_id, Answer { status, mime: mime_type, at }, received, out);
            }
            Ordered::Started(_) | Ordered::Responded(_) => {}
            Ordered::Settled { request_id } => {
                if self.in_flight.remove(&request_id).is_some() {
                    self.net_activity();
                }
            }
            Ordered::Ended { request_id, ending, timestamp } => {
                let at = self.clock.wall(timestamp);
                self.ended(store, &request_id, ending, at, out)
            }
            Ordered::Other(event) => self.apply_other(store, event, out),
        }
    }

    fn started(&mut self, store: &mut Store, start: RequestStart, out: &mut Outbox) {
        if let Some(wall) = start.wall_time {
            self.clock.learn(start.timestamp, wall);
        }
        let at = self.clock.wall(start.timestamp);
        let id = start.request_id;
        let is_document =
            start.resource_type == ResourceType::Document && start.frame_id.as_ref() == Some(&self.main_frame);
        if is_document {
            self.nav.document_requests += 1;
            self.nav.last_document_request = id.clone();
            self.nav_dirty = true;
        }
        let url = records::url(start.url);
        match self.requests.get(&id) {
            // A redirect hop: the same request, going on to another URL.
            Some(tracked) if self.in_flight.contains_key(&id) => {
                let (method, hop) = (start.method, url);
                store.timeline.update(tracked.seq, |record| {
                    if let Record::Request(r) = record {
                        r.url = hop;
                        r.method = method;
                    }
                });
            }
            _ => {
                let fetch_post_data = start.has_post_data && start.post_data.is_none();
                let record = RequestRecord {
                    id: id.clone(),
                    browser_own: is_browser_own(&start.resource_type, &url),
                    method: start.method,
                    url,
                    resource_type: start.resource_type,
                    initiator: start.initiator,
                    callers: start.callers,
                    posted: start.post_data.map(records::posted),
                    response: None,
                    end: None,
                    body_pending: false,
                    body_unread: false,
                    pulled: false,
                };
                let seq = store.timeline.push(at, Record::Request(Box::new(record)));
                let marks = (self.nav.document_requests, self.nav.navigation_requests);
                self.track(store, id.clone(), Tracked { seq, marks });
                if fetch_post_data {
                    out.commands.push(Command::FetchPostData { request_id: id.clone() });
                }
            }
        }
        let flight = Flight { loader: start.loader_id, answered: false };
        if self.in_flight.insert(id, flight).is_none() {
            self.net_activity();
        }
    }

    /// Remembers which timeline entry a request is (forgetting those that fell off).
    fn track(&mut self, store: &Store, id: RequestId, tracked: Tracked) {
        if self.requests.len() >= 2 * super::timeline::MAX_ENTRIES {
            let first = store.timeline.first_seq();
            self.requests.retain(|_, t| t.seq >= first);
        }
        self.requests.insert(id, tracked);
    }

    fn request<'a>(&self, store: &'a Store, id: &RequestId) -> Option<&'a RequestRecord> {
        let tracked = self.requests.get(id)?;
        match &store.timeline.get(tracked.seq)?.record {
            Record::Request(r) => Some(r),
            _ => None,
        }
    }

    fn update_request(&self, store: &mut Store, id: &RequestId, change: impl FnOnce(&mut RequestRecord)) {
        if let Some(tracked) = self.requests.get(id) {
            store.timeline.update(tracked.seq, |record| {
                if let Record::Request(r) = record {
                    change(r)
                }
            });
        }
    }

    fn answered(&mut self, store: &mut Store, id: &RequestId, answer: Answer, received: Option<f64>, out: &mut Outbox) {
        // An answer is network activity: the quiet an action's settling waits for starts after it.
        self.net_activity();
        if let Some(r) = self.request(store, id)
            && !r.browser_own
        {
            // Published on its answer, not its end: what the page does with the answer (a console
            // error in `.then`) comes after it, and so it arrives after it.
            let status = answer.status;
            let mut event =
                LiveEvent::new(LiveKind::Network, status >= 400, format!("{} {} → {status}", r.method, r.url))
                    .at(Some(received.unwrap_or(answer.at) as u64));
            event.url = Some(r.url.clone());
            event.status = Some(status);
            out.live.push(event);
        }
        self.update_request(store, id, |r| r.response = Some(answer));
        if let Some(flight) = self.in_flight.get_mut(id) {
            flight.answered = true;
            out.answered.push(id.clone());
        }
    }

    /// [`BODY_GRACE`] has passed since `id` was answered: if its body is still not finished, the
    /// page is not reading it, and nothing waits for it any more.
    pub fn grace_passed(&mut self, store: &mut Store, id: &RequestId) {
        // An event stream's body is read as it comes, for as long as it lasts.
        let streaming = self.request(store, id).is_some_and(|r| r.resource_type.is_long_lived());
        if !streaming && self.in_flight.get(id).is_some_and(|f| f.answered) {
            self.in_flight.remove(id);
            self.net_activity();
            self.update_request(store, id, |r| r.body_unread = true);
        }
    }

    fn ended(&mut self, store: &mut Store, id: &RequestId, ending: Ending, at: f64, out: &mut Outbox) {
        let Some(request) = self.request(store, id) else { return };
        if request.end.is_some() {
            // Already filed: the egress proxy's refusal came with its answer.
            return;
        }
        match ending {
            Ending::Finished => {
                let error = request.status().is_some_and(|s| s >= 400) && !request.browser_own;
                let mime = request.response.as_ref().map_or("", |r| r.mime.as_str());
                let wants_body = is_text(mime) && (error || request.is_data());
                self.update_request(store, id, |r| {
                    r.end = Some((at, Outcome::Finished));
                    r.body_unread = false;
                    r.body_pending = wants_body;
                });
                if wants_body {
                    out.commands.push(Command::CaptureBody { request_id: id.clone() });
                }
            }
            Ending::Failed(error_text) => {
                let is_document = self.nav.last_document_request == *id;
                if let Some(egress) = self.egress_failure_of(store, id) {
                    self.not_delivered(store, id, is_document, egress.failure, Some(egress.detail), at, out);
                    return;
                }
                if is_document {
                    self.nav.document_failed(id, DocumentFailure::from_failure(error_text.clone(), None));
                    self.nav_dirty = true;
                }
                let aborted = error_text == "aborted" || error_text.contains("ERR_ABORTED");
                let navigated = self.requests.get(id).is_some_and(|t| {
                    (self.nav.document_requests, self.nav.navigation_requests) != t.marks
                        || self.nav.loader_id == id.document_loader()
                });
                let outcome = match (request.response.is_some(), aborted) {
                    // Answered, then its body given up (a navigation, a download taking over).
                    (true, true) => Outcome::BodyNotRead,
                    (false, true) if navigated && !is_document => Outcome::Cancelled,
                    _ => Outcome::Failed(error_text),
                };
                if !request.browser_own && request.response.is_none() {
                    let error = matches!(outcome, Outcome::Failed(_));
                    let why = match &outcome {
                        Outcome::Failed(why) => why.as_str(),
                        _ => "cancelled (the page navigated away)",
                    };
                    let mut event =
                        LiveEvent::new(LiveKind::Network, error, format!("{} {} → {why}", request.method, request.url));
                    event.url = Some(request.url.clone());
                    out.live.push(event);
                }
                self.update_request(store, id, |r| {
                    r.end = Some((at, outcome));
                    r.body_unread = false;
                });
            }
        }
    }

    /// What the egress proxy recorded for a request's host, if it failed to deliver one.
    fn egress_failure_of(&self, store: &Store, id: &RequestId) -> Option<Failure> {
        let url = self.request(store, id)?.url.clone();
        self.env.egress.failure_for(&url)
    }

    /// Records a request the egress proxy did not deliver as failed with the proxy's `failure`
    /// (`blocked_by_policy`, `net::ERR_CONNECTION_REFUSED` …), as a direct connection would show.
    #[allow(clippy::too_many_arguments)]
    fn not_delivered(
        &mut self,
        store: &mut Store,
        id: &RequestId,
        is_document: bool,
        failure: String,
        detail: Option<String>,
        at: f64,
        out: &mut Outbox,
    ) {
        if is_document {
            self.nav.document_failed(id, DocumentFailure::from_failure(failure.clone(), detail));
            self.nav_dirty = true;
        }
        if let Some(r) = self.request(store, id)
            && !r.browser_own
        {
            let mut event = LiveEvent::new(LiveKind::Network, true, format!("{} {} → {failure}", r.method, r.url));
            event.url = Some(r.url.clone());
            out.live.push(event);
        }
        self.update_request(store, id, |r| {
            r.response = None;
            r.end = Some((at, Outcome::Failed(failure)));
        });
    }

    fn net_activity(&mut self) {
        self.net = NetState { in_flight: self.in_flight.len(), last_activity: Instant::now() };
        self.net_dirty = true;
    }

    /// Whether a main-frame lifecycle event is a late one of a document the page is leaving or has
    /// left: one it replaced, or the one a main-frame document request still in flight is about to
    /// replace (the initial `about:blank`'s `networkIdle` can come after the first navigation's
    /// request started). Taken for a commit, it would cut that request off and lose how it ends
    /// (a `page.goto` to a refused port then answered with Chromium's error page). A document's
    /// first event, `init`, always commits.
    fn left_behind(&self, loader: &LoaderId, milestone: &Milestone) -> bool {
        if *loader == self.nav.loader_id || *milestone == Milestone::Init {
            return false;
        }
        let replaced = self.nav.history.contains(loader);
        let next = &self.nav.last_document_request;
        replaced || (*loader != next.document_loader() && self.in_flight.contains_key(next))
    }

    /// A new main document committed: requests of earlier documents will not be reported ended
    /// (Chromium does not always say so, e.g. for a worker's script), so they end here — cut off.
    fn commit(&mut self, store: &mut Store, loader: &LoaderId) {
        if !self.nav.commit(loader) {
            return;
        }
        self.nav_dirty = true;
        // The document's own request (Chromium gives it the loader's id) dates the document.
        let started =
            self.requests.get(&loader.document_request()).and_then(|t| store.timeline.get(t.seq)).map(|e| e.at);
        store.timeline.document_started(started.unwrap_or_else(now_ms));
        let own = loader.document_request();
        let old: Vec<(RequestId, bool)> = self
            .in_flight
            .iter()
            .filter(|(id, flight)| flight.loader != *loader && **id != own)
            .map(|(id, flight)| (id.clone(), flight.answered))
            .collect();
        if old.is_empty() {
            return;
        }
        let now = now_ms();
        for (id, answered) in old {
            self.in_flight.remove(&id);
            self.reorder.forget(&id);
            let outcome = if answered { Outcome::BodyNotRead } else { Outcome::Cancelled };
            self.update_request(store, &id, |r| {
                if r.end.is_none() {
                    r.end = Some((now, outcome));
                }
            });
        }
        self.net_activity();
    }

    fn apply_other(&mut self, store: &mut Store, event: PageEvent, out: &mut Outbox) {
        match event {
            PageEvent::Lifecycle { frame_id, loader_id, milestone, timestamp } if frame_id == self.main_frame => {
                if self.left_behind(&loader_id, &milestone) {
                    return;
                }
                self.commit(store, &loader_id);
                let at = self.clock.wall(timestamp);
                match milestone {
                    Milestone::DomContentLoaded => {
                        self.nav.dom_content_loaded = true;
                        store.timeline.push(at, Record::Milestone(milestone));
                    }
                    Milestone::Load => {
                        self.nav.dom_content_loaded = true;
                        self.nav.loaded = true;
                        store.timeline.push(at, Record::Milestone(milestone));
                    }
                    _ => return,
                }
                self.nav_dirty = true;
            }
            PageEvent::WorldCreated { frame_id, context_id } if frame_id == self.main_frame => {
                self.nav.world = Some(context_id);
                self.nav_dirty = true;
            }
            PageEvent::FrameNavigated { frame_id, parent_id: None, url, .. } if frame_id == self.main_frame => {
                let url = records::url(url);
                let mut event = LiveEvent::new(LiveKind::Navigation, false, url.clone());
                event.url = Some(url.clone());
                out.live.push(event);
                store.timeline.push(now_ms(), Record::Document { url: url.clone() });
                self.nav.url = url;
                self.nav_dirty = true;
            }
            PageEvent::Console { method, text, location, trace, at } => {
                let at = at.map_or_else(now_ms, |ms| ms as f64);
                let level = method.level();
                let wants_source = level == Level::Error && location.is_some();
                let (text, text_length) = records::message(text);
                let mut event =
                    LiveEvent::new(LiveKind::Console, level == Level::Error, text.clone()).at(Some(at as u64));
                event.location = location.clone();
                out.live.push(event);
                let record = ConsoleRecord {
                    method,
                    text,
                    text_length,
                    location: location.clone(),
                    trace,
                    source: None,
                    source_pending: wants_source,
                };
                let seq = store.timeline.push(at, Record::Console(record));
                if let (true, Some(location)) = (wants_source, location) {
                    self.want_source(store, seq, location, out);
                }
            }
            PageEvent::Exception { origin, message, stack, location, trace, at } => {
                let at = at.map_or_else(now_ms, |ms| ms as f64);
                let (message, message_length) = records::message(message);
                let mut event = LiveEvent::new(LiveKind::PageError, true, message.clone()).at(Some(at as u64));
                event.location = location.clone();
                out.live.push(event);
                let record = ErrorRecord {
                    origin,
                    message,
                    message_length,
                    location: location.clone(),
                    trace,
                    source: None,
                    stack: stack.map(records::stack),
                    source_pending: location.is_some(),
                };
                let seq = store.timeline.push(at, Record::PageError(record));
                if let Some(location) = location {
                    self.want_source(store, seq, location, out);
                }
            }
            PageEvent::NavigationRequested { frame_id, disposition: Disposition::CurrentTab, url }
                if frame_id == self.main_frame =>
            {
                // A link to a fragment of the same document loads nothing.
                let base = |u: &str| u.split('#').next().unwrap_or_default().to_owned();
                let same_document = url.contains('#') && base(&url) == base(&self.nav.url);
                if !same_document {
                    self.nav.navigation_requests += 1;
                    self.nav_dirty = true;
                }
            }
            PageEvent::Crashed => {
                self.nav.crashed = true;
                self.nav_dirty = true;
                out.live.push(LiveEvent::new(LiveKind::Crash, true, "the page's renderer process crashed".into()));
                store.timeline.push(now_ms(), Record::Crash);
            }
            PageEvent::RequestPaused { request_id, url } if !self.env.routes.is_empty() => {
                let answer = match self.env.routes.decide(&url) {
                    Decision::Continue => PausedAnswer::Continue { request_id },
                    Decision::Abort => PausedAnswer::Abort { request_id },
                    Decision::Fulfill { status, headers, body } => {
                        PausedAnswer::Fulfill { request_id, status, headers, body: body.to_vec() }
                    }
                };
                out.commands.push(Command::AnswerPaused(answer));
            }
            PageEvent::RequestPaused { request_id, url } => out.paused = Some((request_id, url)),
            PageEvent::FileChooserOpened { backend_node_id } => {
                let arm = self.env.chooser.take(Instant::now());
                let text = match (&arm, backend_node_id) {
                    (Some(arm), Some(_)) => format!("file chooser answered with {} (armed)", arm.names.join(", ")),
                    (Some(_), None) => "file chooser not for a file input: nothing chosen".to_owned(),
                    (None, _) => "file chooser opened with no fileChooser.arm: nothing chosen".to_owned(),
                };
                self.note(store, out, LiveKind::Dialog, Record::Dialog(text));
                if let (Some(arm), Some(node)) = (arm, backend_node_id) {
                    out.commands.push(Command::ChooseFiles { paths: arm.paths, backend_node_id: node });
                }
            }
            PageEvent::AuthRequired { request_id, url, scheme, realm, .. } => {
                let asked = format!("HTTP {scheme} authentication for {url} (realm {realm:?})");
                let text = match self.env.routes.auth_answer(request_id.as_str()) {
                    AuthAnswer::Provided(user) => format!("{asked} answered with httpCredentials ({user})"),
                    AuthAnswer::Cancelled(why) => format!("{asked} cancelled: {why}"),
                };
                self.note(store, out, LiveKind::Dialog, Record::Dialog(text));
            }
            PageEvent::DownloadBegun { guid, url, name } => {
                self.note(store, out, LiveKind::Download, Record::Download(format!("download {name} started")));
                self.env.downloads.begun(guid, name, url);
            }
            PageEvent::DownloadProgress { guid, received, state } => {
                let cap = self.env.download_cap.unwrap_or(u64::MAX);
                if state == DownloadState::InProgress && received > cap && self.env.downloads.mark_over_cap(&guid) {
                    let context_id = self.env.context_id.clone();
                    out.commands.push(Command::CancelDownload { guid: guid.clone(), context_id });
                }
                if let Some(done) = self.env.downloads.progress(&guid, received, state) {
                    let how = match done.state {
                        DownloadState::Completed => format!("finished: {} bytes", done.bytes),
                        DownloadState::Canceled if done.over_cap => {
                            format!("cancelled at {} bytes: larger than DOWNLOAD_MAX_BYTES ({cap} bytes)", done.bytes)
                        }
                        DownloadState::Canceled => "cancelled".to_owned(),
                        other => other.to_string(),
                    };
                    let text = format!("download {} {how}", done.name);
                    self.note(store, out, LiveKind::Download, Record::Download(text));
                }
            }
            // A popup is announced twice, in either order: by its target (its tab, often with no URL
            // yet) and by the opener's `Page.windowOpen` (its URL). It is noted once both are in.
            PageEvent::PopupOpened { target_id, url } => {
                let tab = tab_id(target_id.as_str());
                self.env.popups.opened(target_id.into());
                if !(url.is_empty() || url == "about:blank") {
                    self.popup(store, out, tab, url);
                } else if let Some(url) = self.window_opens.pop_front() {
                    self.popup(store, out, tab, url);
                } else {
                    remember(&mut self.unnamed_popups, tab);
                }
            }
            PageEvent::WindowOpened { url } => match self.unnamed_popups.pop_front() {
                Some(tab) => self.popup(store, out, tab, url),
                None => remember(&mut self.window_opens, url),
            },
            PageEvent::DialogOpening { kind, message, default_prompt } => {
                let answer = self.env.dialogs.answer(&kind, Instant::now());
                let text = arms::describe(&kind, &message, &answer);
                self.note(store, out, LiveKind::Dialog, Record::Dialog(text));
                let prompt_text = (answer.accept && kind == crate::browser::chromium::kinds::DialogKind::Prompt)
                    .then(|| answer.prompt_text.unwrap_or(default_prompt));
                out.commands.push(Command::AnswerDialog { accept: answer.accept, prompt_text });
            }
            PageEvent::ScriptParsed { script_id, url } if !url.is_empty() => store.script_parsed(script_id, url),
            PageEvent::DomChanged(report) => {
                for change in report.changes {
                    store.timeline.push_dom(change);
                }
                for note in report.events {
                    store.timeline.push(note.at, Record::Dispatched(note));
                }
                for note in report.reached {
                    store.input_reached(note);
                }
            }
            PageEvent::DomCause { id, stack_id } => {
                let document = store.timeline.generation();
                store.causes.announced(document, id, now_ms());
                out.commands.push(Command::FetchCause { document, id, stack_id });
            }
            _ => {}
        }
    }

    /// Files what a command learned.
    pub fn found(&mut self, store: &mut Store, finding: Finding) {
        match finding {
            Finding::Body { request_id, body } => {
                let url = self.request(store, &request_id).map(|r| r.url.clone()).unwrap_or_default();
                self.update_request(store, &request_id, |r| r.body_pending = false);
                if let Some(body) = body {
                    store.bodies.insert(&request_id, &url, &body);
                }
            }
            Finding::PostData { request_id, text } => {
                self.update_request(store, &request_id, |r| r.posted = Some(records::posted(text)))
            }
            Finding::Cause { document, id, stack } => store.causes.resolved(document, id, stack),
            Finding::Source { seq, at, text } => {
                let source = text.and_then(|text| {
                    let lines = store.sources.insert(&at.url, &text);
                    sources::excerpt(&lines, at.line, Some(at.column), SOURCE_CONTEXT)
                });
                set_source(store, seq, source);
            }
        }
    }

    /// Adds the source lines around `at` to entry `seq`: from the page's source cache, or asked
    /// for.
    fn want_source(&self, store: &mut Store, seq: u64, at: CodeLocation, out: &mut Outbox) {
        match store.sources.get(&at.url) {
            Some(lines) => {
                let source = sources::excerpt(&lines, at.line, Some(at.column), SOURCE_CONTEXT);
                set_source(store, seq, source);
            }
            None => out.commands.push(Command::FetchSource { seq, at }),
        }
    }

    /// Files something the page did besides logging (a dialog, a download), live too.
    fn note(&self, store: &mut Store, out: &mut Outbox, kind: LiveKind, record: Record) {
        let text = match &record {
            Record::Dialog(text) | Record::Download(text) | Record::Note(text) => text.clone(),
            _ => String::new(),
        };
        out.live.push(LiveEvent::new(kind, false, text));
        store.timeline.push(now_ms(), record);
    }

    fn popup(&self, store: &mut Store, out: &mut Outbox, tab: String, url: String) {
        let text = records::popup_line(&tab, &url);
        out.live.push(LiveEvent::new(LiveKind::Popup, false, text));
        store.timeline.push(now_ms(), Record::Popup { tab, url: records::url(url) });
    }
}

fn set_source(store: &mut Store, seq: u64, source: Option<String>) {
    store.timeline.update(seq, |record| match record {
        Record::Console(c) => {
            c.source = source;
            c.source_pending = false;
        }
        Record::PageError(e) => {
            e.source = source;
            e.source_pending = false;
        }
        _ => {}
    });
}

fn remember(queue: &mut VecDeque<String>, item: String) {
    if queue.len() == POPUP_HALVES {
        queue.pop_front();
    }
    queue.push_back(item);
}

/// Whether a request is one the browser makes by itself rather than the page (the favicon).
pub fn is_browser_own(resource_type: &ResourceType, url: &str) -> bool {
    *resource_type == ResourceType::Unclassified
        && url::Url::parse(url).is_ok_and(|u| u.path() == "/favicon.ico" && u.query().is_none())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::page::watch::records::Entry;
    use crate::egress::failures::BLOCKED_BY_POLICY;

    struct Harness {
        reducer: Reducer,
        store: Store,
        out: Outbox,
    }

    impl Harness {
        fn new() -> Self {
            Self::with(Env::default())
        }

        fn with(env: Env) -> Self {
            Self { reducer: Reducer::new("main".into(), env), store: Store::new(0.0), out: Outbox::default() }
        }

        fn apply(&mut self, event: PageEvent) {
            self.reducer.apply(&mut self.store, event, &mut self.out);
        }

        fn requests(&self) -> Vec<&RequestRecord> {
            self.store
                .timeline
                .iter()
                .filter_map(|e: &Entry| if let Record::Request(r) = &e.record { Some(&**r) } else { None })
                .collect()
        }

        fn in_flight(&self) -> usize {
            self.reducer.in_flight.len()
        }
    }

    fn lifecycle(loader: &str, name: &str) -> PageEvent {
        PageEvent::Lifecycle {
            frame_id: "main".into(),
            loader_id: loader.into(),
            milestone: Milestone::parse(name),
            timestamp: 0.0,
        }
    }

    fn started(id: &str) -> PageEvent {
        PageEvent::RequestStarted(RequestStart {
            request_id: id.into(),
            loader_id: "L1".into(),
            frame_id: Some("other".into()),
            resource_type: ResourceType::Fetch,
            url: "http://x/".into(),
            method: "GET".into(),
            ..Default::default()
        })
    }

    fn response(id: &str, status: u16) -> PageEvent {
        PageEvent::ResponseReceived {
            request_id: id.into(),
            frame_id: None,
            resource_type: ResourceType::Fetch,
            status,
            mime_type: "application/json".into(),
            failure: None,
            refreshes: false,
            at: None,
            timestamp: 0.0,
        }
    }

    fn failed(id: &str, why: &str) -> PageEvent {
        PageEvent::RequestFailed { request_id: id.into(), error_text: why.into(), timestamp: 1.0 }
    }

    #[test]
    fn a_failed_main_document_request_is_remembered() {
        let mut h = Harness::new();
        h.apply(PageEvent::RequestStarted(RequestStart {
            request_id: "D1".into(),
            loader_id: "D1".into(),
            frame_id: Some("main".into()),
            resource_type: ResourceType::Document,
            url: "http://x/".into(),
            ..Default::default()
        }));
        assert_eq!(h.reducer.nav().document_requests, 1);
        h.apply(failed("D1", "net::ERR_CONNECTION_REFUSED"));
        assert_eq!(
            h.reducer.nav().failure_of("D1"),
            Some(&DocumentFailure::Network("net::ERR_CONNECTION_REFUSED".into()))
        );
        assert_eq!(h.in_flight(), 0);
    }

    fn document_started(id: &str) -> PageEvent {
        PageEvent::RequestStarted(RequestStart {
            request_id: id.into(),
            loader_id: id.into(),
            frame_id: Some("main".into()),
            resource_type: ResourceType::Document,
            url: "http://127.0.0.1:9/".into(),
            ..Default::default()
        })
    }

    #[test]
    fn the_old_documents_late_milestone_does_not_cut_off_the_navigation_under_way() {
        let mut h = Harness::new();
        h.apply(document_started("D1"));
        // The initial about:blank's last milestones, reported after the navigation's request began.
        h.apply(lifecycle("BLANK", "networkAlmostIdle"));
        h.apply(lifecycle("BLANK", "networkIdle"));
        assert_eq!(h.in_flight(), 1, "the navigation's request is still under way");
        h.apply(failed("D1", "net::ERR_CONNECTION_REFUSED"));
        assert_eq!(
            h.reducer.nav().failure_of("D1"),
            Some(&DocumentFailure::Network("net::ERR_CONNECTION_REFUSED".into())),
            "how the navigation ended is kept"
        );
        // Chromium's error page commits under the request's id.
        h.apply(lifecycle("D1", "init"));
        h.apply(lifecycle("D1", "load"));
        assert_eq!(h.reducer.nav().loader_id, "D1");
        assert!(h.reducer.nav().loaded);
        assert!(matches!(h.requests()[0].end, Some((_, Outcome::Failed(_)))));
    }

    #[test]
    fn a_replaced_documents_late_milestone_does_not_bring_it_back() {
        let mut h = Harness::new();
        h.apply(lifecycle("L1", "init"));
        h.apply(lifecycle("L2", "init"));
        h.apply(lifecycle("L2", "DOMContentLoaded"));
        h.apply(lifecycle("L1", "networkIdle"));
        h.apply(lifecycle("L1", "load"));
        let nav = h.reducer.nav();
        assert_eq!(nav.loader_id, "L2");
        assert!(nav.dom_content_loaded && !nav.loaded, "L1's load is not L2's");
    }

    #[test]
    fn a_redirect_hop_reported_after_its_chain_ended_is_not_in_flight() {
        let mut h = Harness::new();
        h.apply(started("R1"));
        h.apply(PageEvent::RequestFinished { request_id: "R1".into(), timestamp: 1.0 });
        h.apply(started("R1"));
        assert_eq!(h.in_flight(), 0, "the chain already ended");
        assert_eq!(h.requests().len(), 1);
    }

    #[test]
    fn a_new_loader_resets_the_load_flags_and_starts_a_time_frame() {
        let mut h = Harness::new();
        h.apply(lifecycle("L1", "init"));
        h.apply(lifecycle("L1", "load"));
        assert!(h.reducer.nav().loaded);
        h.apply(lifecycle("L2", "init"));
        let nav = h.reducer.nav().clone();
        assert_eq!(nav.loader_id, "L2");
        assert!(!nav.loaded && !nav.dom_content_loaded);
        assert!(nav.replaced("L1") && !nav.replaced("L2"));
        assert!(h.store.timeline.iter().any(|e| matches!(e.record, Record::Milestone(Milestone::Load))));
    }

    #[test]
    fn subframe_lifecycle_is_ignored() {
        let mut h = Harness::new();
        h.apply(PageEvent::Lifecycle {
            frame_id: "child".into(),
            loader_id: "X".into(),
            milestone: Milestone::Load,
            timestamp: 0.0,
        });
        assert!(!h.reducer.nav().loaded);
    }

    #[test]
    fn the_main_frames_latest_world_is_the_one_helpers_use_and_a_child_frames_is_not() {
        let mut h = Harness::new();
        assert_eq!(h.reducer.nav().world, None);
        h.apply(PageEvent::WorldCreated { frame_id: "main".into(), context_id: 3 });
        h.apply(PageEvent::WorldCreated { frame_id: "child".into(), context_id: 4 });
        assert_eq!(h.reducer.nav().world, Some(3));
        // The next document's world replaces it; the commit alone does not clear it.
        h.apply(lifecycle("L2", "init"));
        assert_eq!(h.reducer.nav().world, Some(3));
        h.apply(PageEvent::WorldCreated { frame_id: "main".into(), context_id: 5 });
        assert_eq!(h.reducer.nav().world, Some(5));
    }

    #[test]
    fn in_flight_counts_requests_even_when_the_end_arrives_first() {
        let mut h = Harness::new();
        h.apply(started("a"));
        h.apply(started("b"));
        assert_eq!(h.in_flight(), 2);
        h.apply(PageEvent::RequestFinished { request_id: "a".into(), timestamp: 1.0 });
        h.apply(failed("c", "x"));
        h.apply(started("c"));
        h.apply(failed("b", "x"));
        assert_eq!(h.in_flight(), 0);
    }

    #[test]
    fn requests_cut_off_by_a_new_document_end_as_cancelled_and_stop_counting() {
        let mut h = Harness::new();
        h.apply(lifecycle("L1", "init"));
        h.apply(started("slow"));
        h.apply(started("answered"));
        h.apply(response("answered", 204));
        assert_eq!(h.in_flight(), 2);
        h.apply(lifecycle("L2", "init"));
        assert_eq!(h.in_flight(), 0);
        let requests = h.requests();
        assert!(matches!(requests[0].end, Some((_, Outcome::Cancelled))));
        assert!(!requests[0].is_error());
        assert!(matches!(requests[1].end, Some((_, Outcome::BodyNotRead))));
        assert_eq!(requests[1].status(), Some(204));
    }

    #[test]
    fn an_answer_whose_body_is_aborted_is_no_failure() {
        let mut h = Harness::new();
        h.apply(started("r"));
        h.apply(response("r", 200));
        h.apply(failed("r", "aborted"));
        let r = h.requests()[0];
        assert!(matches!(r.end, Some((_, Outcome::BodyNotRead))));
        assert!(!r.is_error());
        assert_eq!(h.store.timeline.counts(), (0, 0, 0));
    }

    #[test]
    fn an_unread_body_stops_counting_as_in_flight_once_its_grace_has_passed() {
        let mut h = Harness::new();
        h.apply(started("buy"));
        h.apply(response("buy", 200));
        assert_eq!(h.out.answered, vec!["buy".to_owned()]);
        assert_eq!(h.in_flight(), 1);
        h.reducer.grace_passed(&mut h.store, &"buy".into());
        assert_eq!(h.in_flight(), 0);
        let r = h.requests()[0];
        assert!(r.is_answered() && r.body_unread && r.end.is_none());
        // When the body ends after all, it is filed as finished.
        h.apply(PageEvent::RequestFinished { request_id: "buy".into(), timestamp: 2.0 });
        assert!(matches!(h.requests()[0].end, Some((_, Outcome::Finished))));
    }

    #[test]
    fn a_fetch_aborted_by_the_page_itself_stays_a_failure() {
        let mut h = Harness::new();
        h.apply(started("q"));
        h.apply(failed("q", "aborted"));
        assert_eq!(h.requests()[0].failure(), Some("aborted"));
    }

    #[test]
    fn a_request_the_egress_proxy_refused_is_reported_as_blocked_by_policy() {
        let log = Arc::new(FailureLog::default());
        log.record("x", 80, Some("http://x/"), BLOCKED_BY_POLICY, "http://x/ does not match".into());
        let mut h = Harness::with(Env { egress: log, ..Env::default() });
        h.apply(started("r"));
        h.apply(failed("r", "net::ERR_FAILED"));
        assert_eq!(h.requests()[0].failure(), Some(BLOCKED_BY_POLICY));
    }

    #[test]
    fn a_request_the_egress_proxy_answered_for_stays_refused_when_its_end_follows() {
        let mut h = Harness::new();
        h.apply(started("r"));
        h.apply(PageEvent::ResponseReceived {
            request_id: "r".into(),
            frame_id: None,
            resource_type: ResourceType::Image,
            status: 403,
            mime_type: "text/plain".into(),
            failure: Some(BLOCKED_BY_POLICY.into()),
            refreshes: false,
            at: None,
            timestamp: 0.0,
        });
        h.apply(PageEvent::RequestFinished { request_id: "r".into(), timestamp: 1.0 });
        assert_eq!(h.requests()[0].failure(), Some(BLOCKED_BY_POLICY));
        assert!(h.out.commands.is_empty(), "no body to capture");
    }

    #[test]
    fn a_finished_data_request_asks_for_its_body_and_files_it() {
        let mut h = Harness::new();
        h.apply(started("r"));
        h.apply(response("r", 422));
        h.apply(PageEvent::RequestFinished { request_id: "r".into(), timestamp: 1.0 });
        assert_eq!(h.out.commands, vec![Command::CaptureBody { request_id: "r".into() }]);
        assert!(h.requests()[0].body_pending);
        h.reducer.found(&mut h.store, Finding::Body { request_id: "r".into(), body: Some("{\"e\":1}".into()) });
        assert!(!h.requests()[0].body_pending);
        assert_eq!(&*h.store.bodies.get("r").unwrap().text, "{\"e\":1}");
        assert_eq!(h.store.timeline.counts(), (0, 0, 1));
    }

    #[test]
    fn a_popup_is_noted_once_with_its_url_whichever_announcement_comes_first() {
        let popups = PopupLog::default();
        let mut h = Harness::with(Env { popups: popups.clone(), ..Env::default() });
        h.apply(PageEvent::PopupOpened { target_id: "AAAABBBBCCCC".into(), url: String::new() });
        h.apply(PageEvent::WindowOpened { url: "http://x/a".into() });
        h.apply(PageEvent::WindowOpened { url: "http://x/b".into() });
        h.apply(PageEvent::PopupOpened { target_id: "DDDDEEEEFFFF".into(), url: "about:blank".into() });
        let noted: Vec<(String, String)> = h
            .store
            .timeline
            .iter()
            .filter_map(|e| {
                if let Record::Popup { tab, url } = &e.record { Some((tab.clone(), url.clone())) } else { None }
            })
            .collect();
        assert_eq!(noted, vec![("aaaabbbb".into(), "http://x/a".into()), ("ddddeeee".into(), "http://x/b".into())]);
        assert_eq!(popups.take(), vec!["AAAABBBBCCCC".to_owned(), "DDDDEEEEFFFF".to_owned()]);
    }

    #[test]
    fn a_dialog_is_answered_by_command_and_filed_and_leaving_a_page_is_accepted() {
        let mut h = Harness::new();
        h.apply(PageEvent::DialogOpening {
            kind: crate::browser::chromium::kinds::DialogKind::BeforeUnload,
            message: String::new(),
            default_prompt: String::new(),
        });
        // Unarmed, "Leave site?" is accepted: dismissing it would cancel the navigation that asked.
        assert_eq!(h.out.commands, vec![Command::AnswerDialog { accept: true, prompt_text: None }]);
        assert!(h.store.timeline.iter().any(
            |e| matches!(&e.record, Record::Dialog(t) if t.starts_with("beforeunload") && t.contains("the page was left"))
        ));
    }
}
