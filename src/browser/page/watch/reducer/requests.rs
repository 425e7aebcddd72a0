//! Requests, from start to end: a request's life is started (a timeline entry, in flight) →
//! answered (its status; the page acts on it) → ended (finished, failed, cancelled by a
//! navigation, or its body given up). An answer whose body the page never reads
//! (`fetch(…).then(r => r.ok)` on a `no-store` response: Chromium never says "finished") stops
//! counting as in flight once [`BODY_GRACE`] has passed after it, so neither `networkidle` nor an
//! action's settling waits for a body nobody reads.
//!
//! A request the session's egress proxy did not deliver is filed with the proxy's failure
//! (`blocked_by_policy`, `net::ERR_CONNECTION_REFUSED` …), as a direct connection would show it:
//! the proxy's failures come as a copy the pump hands over ([`Failures`]).

use std::collections::HashMap;
use std::time::Duration;

use super::super::bodies::is_text;
use super::super::cdp_events::{LoadError, PageEvent, Redirect, RequestStart};
use super::super::clock::{Clock, Now};
use super::super::commands::Command;
use super::super::nav::{DocumentFailure, NetState};
use super::super::notes::{RequestOutcome, Signal};
use super::super::records::{self, Answer, Outcome, Record, RequestRecord};
use super::super::reorder::{Ending, Reorder};
use super::super::store::Store;
use super::super::timeline::MAX_ENTRIES;
use super::super::wire::{self, Wire};
use super::main_frame::MainFrame;
use super::outbox::Outbox;
use crate::browser::chromium::ids::{LoaderId, RequestId};
use crate::browser::chromium::kinds::ResourceType;
use crate::egress::failures::{Failure, Failures};

/// How long after its answer a request whose body is not finished stops counting as in flight.
pub const BODY_GRACE: Duration = Duration::from_millis(500);

/// A request the reducer follows: its timeline entry, and how far the page had navigated when it
/// started (a request cut off by a later navigation is cancelled, not failed).
#[derive(Debug, Clone, Copy)]
struct Tracked {
    /// Its entry (a redirect chain's latest hop).
    seq: u64,
    /// The chain's first hop's entry (when the request started).
    first_seq: u64,
    marks: (u64, u64),
}

#[derive(Debug, Clone)]
struct Flight {
    /// The document the request belongs to.
    loader: LoaderId,
    /// Its answer came (its body may not).
    answered: bool,
}

#[derive(Debug)]
pub struct Requests {
    /// Requests started and not yet settled.
    in_flight: HashMap<RequestId, Flight>,
    /// Which timeline entry each request is.
    tracked: HashMap<RequestId, Tracked>,
    net: NetState,
    net_dirty: bool,
    /// What the session's egress proxy failed to deliver.
    pub egress: Failures,
}

impl Requests {
    pub fn new(now: Now) -> Self {
        Self {
            in_flight: HashMap::new(),
            tracked: HashMap::new(),
            net: NetState { in_flight: 0, last_activity: now.instant },
            net_dirty: false,
            egress: Failures::default(),
        }
    }

    /// The network activity, when it changed since the last call.
    pub fn changed(&mut self) -> Option<&NetState> {
        std::mem::take(&mut self.net_dirty).then_some(&self.net)
    }

    pub fn is_in_flight(&self, id: &RequestId) -> bool {
        self.in_flight.contains_key(id)
    }

    #[cfg(test)]
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// When request `id` started, while its entry is kept.
    pub fn started_at(&self, store: &Store, id: &RequestId) -> Option<f64> {
        self.tracked.get(id).and_then(|t| store.timeline.get(t.first_seq)).map(|e| e.at)
    }

    /// `Network.requestWillBeSent`: a request started, or (same id, still in flight) went on to
    /// its next redirect hop. Returns the timeline entry made for it (each hop its own).
    pub fn started(
        &mut self,
        store: &mut Store,
        frame: &mut MainFrame,
        clock: &mut Clock,
        start: RequestStart,
        now: Now,
        out: &mut Outbox,
    ) -> Option<u64> {
        if let Some(wall) = start.wall_time {
            clock.learn(start.timestamp, wall);
        }
        let at = clock.wall(start.timestamp, now.wall);
        let id = start.request_id.clone();
        if start.resource_type == ResourceType::Document && start.frame_id.as_ref().is_some_and(|f| frame.is_main(f)) {
            frame.document_requested(&id);
        }
        let first = match self.tracked.get(&id).copied() {
            Some(tracked) if self.in_flight.contains_key(&id) => {
                let Some(redirect) = &start.redirect else {
                    // A new URL without the answer that sent it there: the same entry, moved on.
                    let (method, hop) = (start.method, records::url(start.url));
                    store.timeline.update(tracked.seq, |record| {
                        if let Record::Request(r) = record {
                            r.url = hop;
                            r.method = method;
                        }
                    });
                    return None;
                };
                self.hop_answered(store, &id, redirect, &start.url, at);
                Some(tracked.first_seq)
            }
            _ => None,
        };
        let seq = self.record(store, start, (at, now), out);
        self.track(store, id, Tracked { seq, first_seq: first.unwrap_or(seq), marks: frame.marks() });
        Some(seq)
    }

    /// The hop before `id`'s next one was answered with `redirect`, sending it on to `to`.
    fn hop_answered(&mut self, store: &mut Store, id: &RequestId, redirect: &Redirect, to: &str, at: f64) {
        let headers = wire::headers(&redirect.headers, &store.redactor, false);
        let answer = Answer { status: redirect.status, mime: redirect.mime.clone(), at };
        let to = records::url(to.to_owned());
        self.update(store, id, |r| {
            r.response = Some(answer);
            r.end = Some((at, Outcome::Finished));
            r.redirected_to = Some(to);
            let wire = r.wire.get_or_insert_with(Box::default);
            if !wire.answer_headers.complete {
                wire.answer_headers = headers;
            }
        });
    }

    /// A new timeline entry for a request (or its next hop), in flight.
    fn record(&mut self, store: &mut Store, start: RequestStart, (at, now): (f64, Now), out: &mut Outbox) -> u64 {
        let id = start.request_id;
        let url = records::url(start.url);
        let fetch_post_data = start.has_post_data && start.post_data.is_none();
        let sent_headers = wire::headers(&start.headers, &store.redactor, false);
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
            redirected_to: None,
            wire: (!sent_headers.list.is_empty()).then(|| Box::new(Wire { sent_headers, ..Wire::default() })),
        };
        let seq = store.timeline.push(at, Record::Request(Box::new(record)));
        if fetch_post_data {
            out.commands.push(Command::FetchPostData { request_id: id.clone() });
        }
        let flight = Flight { loader: start.loader_id, answered: false };
        if self.in_flight.insert(id, flight).is_none() {
            self.net_activity(now);
        }
        seq
    }

    /// Remembers which timeline entry a request is (forgetting those that fell off).
    fn track(&mut self, store: &Store, id: RequestId, tracked: Tracked) {
        if self.tracked.len() >= 2 * MAX_ENTRIES {
            let first = store.timeline.first_seq();
            self.tracked.retain(|_, t| t.seq >= first);
        }
        self.tracked.insert(id, tracked);
    }

    fn request<'a>(&self, store: &'a Store, id: &RequestId) -> Option<&'a RequestRecord> {
        let tracked = self.tracked.get(id)?;
        match &store.timeline.get(tracked.seq)?.record {
            Record::Request(r) => Some(r),
            _ => None,
        }
    }

    fn update(&self, store: &mut Store, id: &RequestId, change: impl FnOnce(&mut RequestRecord)) {
        if let Some(tracked) = self.tracked.get(id) {
            store.timeline.update(tracked.seq, |record| {
                if let Record::Request(r) = record {
                    change(r)
                }
            });
        }
    }

    /// `Network.responseReceived`, in order: an answer, or the egress proxy's own answer for a
    /// request it did not deliver.
    pub fn responded(
        &mut self,
        store: &mut Store,
        frame: &mut MainFrame,
        clock: &mut Clock,
        event: PageEvent,
        now: Now,
        out: &mut Outbox,
    ) {
        let PageEvent::ResponseReceived {
            request_id,
            frame_id,
            resource_type,
            status,
            mime_type,
            failure,
            refreshes,
            at,
            timestamp,
            headers,
        } = event
        else {
            return;
        };
        let headers = wire::headers(&headers, &store.redactor, false);
        self.update(store, &request_id, |r| {
            let wire = r.wire.get_or_insert_with(Box::default);
            if !wire.answer_headers.complete {
                wire.answer_headers = headers;
            }
        });
        let in_main_frame = frame_id.as_ref().is_some_and(|f| frame.is_main(f));
        if let Some(failure) = failure {
            let is_document = in_main_frame && frame.state().last_document_request == request_id;
            let detail = self.egress_failure_of(store, &request_id).map(|f| f.detail);
            let refused = Refused { is_document, failure, detail };
            return self.not_delivered(store, frame, &request_id, refused, now.wall, out);
        }
        if resource_type == ResourceType::Document && in_main_frame {
            frame.document_answered(&request_id, status, refreshes);
        }
        // When the network stack had the answer (its wall time, earlier than the event's own
        // stamp): what a subscriber orders it by, ahead of what the page did with it.
        let received = at.map(|ms| ms as f64);
        let at = match (timestamp > 0.0, received) {
            (true, _) => clock.wall(timestamp, now.wall),
            (false, Some(at)) => at,
            (false, None) => now.wall,
        };
        self.answered(store, &request_id, Answer { status, mime: mime_type, at }, received, now, out);
    }

    fn answered(
        &mut self,
        store: &mut Store,
        id: &RequestId,
        answer: Answer,
        received: Option<f64>,
        now: Now,
        out: &mut Outbox,
    ) {
        // An answer is network activity: the quiet an action's settling waits for starts after it.
        self.net_activity(now);
        if let Some(r) = self.request(store, id)
            && !r.browser_own
        {
            // Published on its answer, not its end: what the page does with the answer (a console
            // error in `.then`) comes after it, and so it arrives after it.
            out.live.push(Signal::Request {
                method: r.method.clone(),
                url: r.url.clone(),
                outcome: RequestOutcome::Status(answer.status),
                page_at: Some(received.unwrap_or(answer.at) as u64),
            });
        }
        self.update(store, id, |r| r.response = Some(answer));
        // A stream (an EventSource) is open by design once answered: nothing waits for its end.
        let stream = self.request(store, id).is_some_and(|r| r.resource_type.is_long_lived());
        if stream && self.in_flight.remove(id).is_some() {
            self.net_activity(now);
        } else if let Some(flight) = self.in_flight.get_mut(id) {
            flight.answered = true;
            out.answered.push(id.clone());
        }
    }

    /// The request is no longer in flight (its end is known, its outcome may not be yet).
    pub fn settled(&mut self, id: &RequestId, now: Now) {
        if self.in_flight.remove(id).is_some() {
            self.net_activity(now);
        }
    }

    /// [`BODY_GRACE`] has passed since `id` was answered: if its body is still not finished, the
    /// page is not reading it, and nothing waits for it any more.
    pub fn grace_passed(&mut self, store: &mut Store, id: &RequestId, now: Now) {
        // An event stream's body is read as it comes, for as long as it lasts.
        let streaming = self.request(store, id).is_some_and(|r| r.resource_type.is_long_lived());
        if !streaming && self.in_flight.get(id).is_some_and(|f| f.answered) {
            self.in_flight.remove(id);
            self.net_activity(now);
            self.update(store, id, |r| r.body_unread = true);
        }
    }

    /// The request's outcome is complete (`at`: when it ended, ms since the Unix epoch).
    pub fn ended(
        &mut self,
        store: &mut Store,
        frame: &mut MainFrame,
        id: &RequestId,
        ending: Ending,
        at: f64,
        out: &mut Outbox,
    ) {
        let Some(request) = self.request(store, id) else { return };
        if request.end.is_some() {
            // Already filed: the egress proxy's refusal came with its answer.
            return;
        }
        match ending {
            Ending::Finished => self.finished(store, id, at, out),
            Ending::Failed(error) => self.failed(store, frame, id, error, at, out),
        }
    }

    fn finished(&mut self, store: &mut Store, id: &RequestId, at: f64, out: &mut Outbox) {
        let Some(request) = self.request(store, id) else { return };
        let error = request.status().is_some_and(|s| s >= 400) && !request.browser_own;
        let mime = request.response.as_ref().map_or("", |r| r.mime.as_str());
        let wants_body = is_text(mime) && (error || request.is_data());
        self.update(store, id, |r| {
            r.end = Some((at, Outcome::Finished));
            r.body_unread = false;
            r.body_pending = wants_body;
        });
        if wants_body {
            out.commands.push(Command::CaptureBody { request_id: id.clone() });
        }
    }

    fn failed(
        &mut self,
        store: &mut Store,
        frame: &mut MainFrame,
        id: &RequestId,
        error: LoadError,
        at: f64,
        out: &mut Outbox,
    ) {
        let is_document = frame.state().last_document_request == *id;
        if let Some(egress) = self.egress_failure_of(store, id) {
            let refused = Refused { is_document, failure: egress.failure, detail: Some(egress.detail) };
            return self.not_delivered(store, frame, id, refused, at, out);
        }
        if is_document {
            frame.document_failed(id, DocumentFailure::failed(error.clone()));
        }
        let Some(request) = self.request(store, id) else { return };
        let aborted = error.aborted;
        let navigated = self.tracked.get(id).is_some_and(|t| frame.navigated_since(t.marks, id));
        let outcome = match (request.response.is_some(), aborted) {
            // Answered, then its body given up (a navigation, a download taking over).
            (true, true) => Outcome::BodyNotRead,
            (false, true) if navigated && !is_document => Outcome::Cancelled,
            _ => Outcome::Failed(error.text),
        };
        if !request.browser_own && request.response.is_none() {
            let live = match &outcome {
                Outcome::Failed(why) => RequestOutcome::Failed(why.clone()),
                _ => RequestOutcome::Cancelled,
            };
            let (method, url) = (request.method.clone(), request.url.clone());
            out.live.push(Signal::Request { method, url, outcome: live, page_at: None });
        }
        self.update(store, id, |r| {
            r.end = Some((at, outcome));
            r.body_unread = false;
        });
    }

    /// What the egress proxy recorded for a request's host, if it failed to deliver one.
    fn egress_failure_of(&self, store: &Store, id: &RequestId) -> Option<Failure> {
        let url = &self.request(store, id)?.url;
        self.egress.failure_for(url)
    }

    /// Records a request the egress proxy did not deliver as failed with the proxy's failure, as
    /// a direct connection would show.
    fn not_delivered(
        &mut self,
        store: &mut Store,
        frame: &mut MainFrame,
        id: &RequestId,
        refused: Refused,
        at: f64,
        out: &mut Outbox,
    ) {
        let Refused { is_document, failure, detail } = refused;
        if is_document {
            frame.document_failed(id, DocumentFailure::from_failure(failure.clone(), detail));
        }
        if let Some(r) = self.request(store, id)
            && !r.browser_own
        {
            let (method, url) = (r.method.clone(), r.url.clone());
            out.live.push(Signal::Request {
                method,
                url,
                outcome: RequestOutcome::Failed(failure.clone()),
                page_at: None,
            });
        }
        self.update(store, id, |r| {
            r.response = None;
            r.end = Some((at, Outcome::Failed(failure)));
        });
    }

    /// A new main document (`loader`) committed: requests of earlier documents will not be
    /// reported ended (Chromium does not always say so, e.g. for a worker's script), so they end
    /// here — cut off.
    pub fn cut_off(&mut self, store: &mut Store, loader: &LoaderId, reorder: &mut Reorder, now: Now) {
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
        for (id, answered) in old {
            self.in_flight.remove(&id);
            reorder.forget(&id);
            let outcome = if answered { Outcome::BodyNotRead } else { Outcome::Cancelled };
            self.update(store, &id, |r| {
                if r.end.is_none() {
                    r.end = Some((now.wall, outcome));
                }
            });
        }
        self.net_activity(now);
    }

    /// Files a captured body.
    pub fn found_body(&mut self, store: &mut Store, id: &RequestId, body: Option<String>) {
        let url = self.request(store, id).map(|r| r.url.clone()).unwrap_or_default();
        self.update(store, id, |r| r.body_pending = false);
        if let Some(body) = body {
            store.bodies.insert(id, &url, &body);
        }
    }

    /// Files posted data Chromium left out of the request event.
    pub fn found_post_data(&mut self, store: &mut Store, id: &RequestId, text: String) {
        self.update(store, id, |r| r.posted = Some(records::posted(text)))
    }

    fn net_activity(&mut self, now: Now) {
        self.net = NetState { in_flight: self.in_flight.len(), last_activity: now.instant };
        self.net_dirty = true;
    }
}

/// A request the egress proxy did not deliver: the failure it named and why.
struct Refused {
    is_document: bool,
    failure: String,
    detail: Option<String>,
}

/// Whether a request is one the browser makes by itself rather than the page (the favicon).
pub fn is_browser_own(resource_type: &ResourceType, url: &str) -> bool {
    *resource_type == ResourceType::Unclassified
        && url::Url::parse(url).is_ok_and(|u| u.path() == "/favicon.ico" && u.query().is_none())
}
