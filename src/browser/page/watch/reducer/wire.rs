//! Headers and cookies: each hop's ExtraInfo events (every header on the wire, the cookies the
//! browser sent and withheld, the answer's `Set-Cookie` lines and those it refused), paired with
//! the hop they belong to and filed — masked and bounded (`watch::wire`) — in that hop's request
//! entry.
//!
//! CDP gives no hop index (a redirect chain's hops share one request id) and these events come on
//! channels of their own, before or after the hop's start: a `Sent` event is paired by its send
//! time with the hop that started then; an `Answered` one with the first hop not yet paired whose
//! status is its own (or, still unanswered, the latest hop). An event no hop takes yet waits for
//! the next hop of its request (at most [`MAX_WAITING`], the oldest let go).

use std::collections::{HashMap, VecDeque};

use super::super::cdp_events::{CookieConsidered, HeaderList, RefusedLine, WireEvent};
use super::super::records::{Record, RequestRecord};
use super::super::store::Store;
use super::super::timeline::MAX_ENTRIES;
use super::super::wire::{self, MAX_COOKIES, Withheld};
use crate::browser::chromium::ids::RequestId;
use crate::browser::redact::Redactor;

/// ExtraInfo events waiting for their hop, at most.
const MAX_WAITING: usize = 256;
/// How far (seconds) a hop's send time may be from its start to be paired with it (measured
/// under 1 ms; the rest is slack for a loaded machine).
const SAME_HOP: f64 = 1.0;

/// One hop of a request: its entry, when it started (CDP seconds), what was filed.
#[derive(Debug, Clone, Copy)]
struct Hop {
    seq: u64,
    started: f64,
    sent: bool,
    answered: bool,
}

#[derive(Debug, Default)]
pub struct Wires {
    hops: HashMap<RequestId, Vec<Hop>>,
    waiting: VecDeque<WireEvent>,
}

impl Wires {
    /// Request `id` has a new hop: entry `seq`, started at `started` (CDP seconds).
    pub fn hop(&mut self, store: &mut Store, id: &RequestId, seq: u64, started: f64) {
        if self.hops.len() >= 2 * MAX_ENTRIES {
            let first = store.timeline.first_seq();
            self.hops.retain(|_, hops| hops.last().is_some_and(|h| h.seq >= first));
        }
        self.hops.entry(id.clone()).or_default().push(Hop { seq, started, sent: false, answered: false });
        let (mine, rest): (Vec<_>, Vec<_>) = self.waiting.drain(..).partition(|e| request_of(e) == id);
        self.waiting = rest.into();
        for event in mine {
            self.apply(store, event);
        }
    }

    /// Files one ExtraInfo event with its hop, or keeps it until the hop starts.
    pub fn apply(&mut self, store: &mut Store, event: WireEvent) {
        let hop = match &event {
            WireEvent::Sent { request_id, request_time, .. } => self.sent_hop(request_id, *request_time),
            WireEvent::Answered { request_id, status, .. } => self.answered_hop(store, request_id, *status),
        };
        let Some(hop) = hop else {
            if self.waiting.len() == MAX_WAITING {
                self.waiting.pop_front();
            }
            self.waiting.push_back(event);
            return;
        };
        let Store { timeline, redactor, .. } = store;
        match event {
            WireEvent::Sent { headers, cookies, .. } => {
                hop.sent = true;
                timeline.update(hop.seq, |record| with_request(record, |r| file_sent(r, &headers, cookies, redactor)));
            }
            WireEvent::Answered { headers, refused, .. } => {
                hop.answered = true;
                timeline
                    .update(hop.seq, |record| with_request(record, |r| file_answer(r, &headers, refused, redactor)));
            }
        }
    }

    /// The hop a `Sent` event belongs to: the unpaired one that started at its send time (without
    /// one, the first unpaired).
    fn sent_hop(&mut self, id: &RequestId, request_time: Option<f64>) -> Option<&mut Hop> {
        let hops = self.hops.get_mut(id)?;
        let mut open = hops.iter_mut().filter(|h| !h.sent);
        match request_time {
            Some(time) => open
                .filter(|h| (h.started - time).abs() <= SAME_HOP)
                .min_by(|a, b| (a.started - time).abs().total_cmp(&(b.started - time).abs())),
            None => open.next(),
        }
    }

    /// The hop an `Answered` event belongs to: the first unpaired one answered with `status`, or
    /// the latest while it is still unanswered.
    fn answered_hop(&mut self, store: &Store, id: &RequestId, status: u16) -> Option<&mut Hop> {
        let hops = self.hops.get_mut(id)?;
        let last = hops.len().checked_sub(1)?;
        let status_of = |seq: u64| match store.timeline.get(seq).map(|e| &e.record) {
            Some(Record::Request(r)) => r.status(),
            _ => None,
        };
        hops.iter_mut().enumerate().find_map(|(i, hop)| {
            let answer = status_of(hop.seq);
            let fits = answer == Some(status) || (answer.is_none() && i == last);
            (!hop.answered && fits).then_some(hop)
        })
    }
}

fn request_of(event: &WireEvent) -> &RequestId {
    match event {
        WireEvent::Sent { request_id, .. } | WireEvent::Answered { request_id, .. } => request_id,
    }
}

fn with_request(record: &mut Record, change: impl FnOnce(&mut RequestRecord)) {
    if let Record::Request(r) = record {
        change(r)
    }
}

/// Every header the hop was sent with, the names of the cookies sent, those withheld and why.
fn file_sent(r: &mut RequestRecord, headers: &HeaderList, cookies: Vec<CookieConsidered>, redactor: &Redactor) {
    let wire = r.wire.get_or_insert_with(Box::default);
    wire.sent_headers = wire::headers(headers, redactor, true);
    let (mut sent, mut withheld, mut more) = (Vec::new(), Vec::new(), 0);
    for cookie in cookies {
        if cookie.blocked.is_empty() {
            wire::push_bounded(&mut sent, wire::name(&cookie.name), MAX_COOKIES, &mut more);
        } else {
            let kept = Withheld {
                name: wire::name(&cookie.name),
                path: wire::name(&cookie.path),
                domain: wire::name(&cookie.domain),
                reasons: cookie.blocked,
            };
            wire::push_bounded(&mut withheld, kept, MAX_COOKIES, &mut more);
        }
    }
    (wire.cookies_sent, wire.withheld) = (sent, withheld);
    wire.more_cookies += more;
}

/// Every header of the hop's answer, and each `Set-Cookie` line's outcome.
fn file_answer(r: &mut RequestRecord, headers: &HeaderList, refused: Vec<RefusedLine>, redactor: &Redactor) {
    let url = r.url.clone();
    let wire = r.wire.get_or_insert_with(Box::default);
    wire.answer_headers = wire::headers(headers, redactor, true);
    let mut refused: Vec<Option<RefusedLine>> = refused.into_iter().map(Some).collect();
    let lines = headers.iter().filter(|(name, _)| name.eq_ignore_ascii_case("set-cookie")).map(|(_, line)| line);
    let (mut set, mut more) = (Vec::new(), 0);
    for line in lines {
        let reasons = refused.iter_mut().find(|r| r.as_ref().is_some_and(|r| r.line == *line)).and_then(Option::take);
        let cookie = wire::set_cookie(line, &url, reasons.map(|r| r.reasons));
        wire::push_bounded(&mut set, cookie, MAX_COOKIES, &mut more);
    }
    // Lines Chromium refused that the headers did not list (it reads them from the raw block).
    for line in refused.into_iter().flatten() {
        let cookie = wire::set_cookie(&line.line, &url, Some(line.reasons));
        wire::push_bounded(&mut set, cookie, MAX_COOKIES, &mut more);
    }
    wire.set = set;
    wire.more_cookies += more;
}
