//! Putting a request's events back in order.
//!
//! chromiumoxide delivers each CDP event type on its own channel, so across types the order is
//! lost: a request's `loadingFinished` can arrive before its `responseReceived`, or even before its
//! `requestWillBeSent`, and a redirect hop's second `requestWillBeSent` can arrive after the chain
//! ended. (chromiumoxide offers no single ordered stream of a target's events.) [`Reorder`] owns
//! every rule that restores the order; the reducer applies what it emits and never sees events out
//! of order. For each request it emits, in this order:
//!
//! 1. [`Ordered::Started`] (again for each redirect hop while the request is in flight),
//! 2. [`Ordered::Responded`], when a response arrived,
//! 3. [`Ordered::Settled`]: no longer in flight (as soon as its end is known, even when the
//!    response is still on its way, so waiting for an idle network is never held up),
//! 4. [`Ordered::Ended`]: the outcome is complete and can be filed (after its response).
//!
//! Events of a request whose start has not arrived are held until it does; memory is bounded
//! (old held events and old ended ids are forgotten first).

use std::borrow::Borrow;
use std::collections::{HashSet, VecDeque};
use std::hash::Hash;

use super::cdp_events::{LoadError, PageEvent};
use crate::browser::chromium::ids::RequestId;

/// Held events and ended ids remembered, each.
const REMEMBERED: usize = 512;
/// Requests tracked between start and end; beyond this a runaway page's requests are not ordered.
const MAX_OPEN: usize = 5000;

/// How a request ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    Finished,
    Failed(LoadError),
}

/// A request's events in order, or any other event as it came.
#[derive(Debug, Clone, PartialEq)]
pub enum Ordered {
    /// Not a request event: apply as it is.
    Other(PageEvent),
    /// `Network.requestWillBeSent` (a [`PageEvent::RequestStarted`]).
    Started(PageEvent),
    /// `Network.responseReceived` (a [`PageEvent::ResponseReceived`]).
    Responded(PageEvent),
    /// The request is no longer in flight.
    Settled { request_id: RequestId },
    /// The request's outcome is complete (`timestamp`: when it ended, CDP monotonic seconds).
    Ended { request_id: RequestId, ending: Ending, timestamp: f64 },
}

#[derive(Debug, Default)]
pub struct Reorder {
    /// Started and not yet settled.
    open: HashSet<RequestId>,
    /// Started and responded, not yet ended.
    responded: HashSet<RequestId>,
    /// Settled (finished) before their response arrived, with when they finished; ended when the
    /// response arrives.
    awaiting_response: VecDeque<(RequestId, f64)>,
    /// Settled recently: a start for one of them is a late redirect hop of a finished chain.
    ended: VecDeque<RequestId>,
    /// Events of requests whose start has not arrived yet, replayed when it does.
    early: VecDeque<(RequestId, PageEvent)>,
}

impl Reorder {
    /// Takes one event as it arrived and returns what to apply now, in order.
    pub fn arrive(&mut self, event: PageEvent) -> Vec<Ordered> {
        let mut out = Vec::new();
        self.take(event, &mut out);
        out
    }

    /// Stops ordering `request_id` (its document was replaced and it will never be reported ended).
    pub fn forget<Id: Hash + Eq + ?Sized>(&mut self, request_id: &Id)
    where
        RequestId: Borrow<Id>,
    {
        self.open.remove(request_id);
        self.responded.remove(request_id);
    }

    fn take(&mut self, event: PageEvent, out: &mut Vec<Ordered>) {
        match event {
            PageEvent::RequestStarted(ref start) => {
                if self.ended.contains(&start.request_id) {
                    return; // a redirect hop whose chain already ended
                }
                let id = start.request_id.clone();
                if !self.open.contains(&id) && self.open.len() >= MAX_OPEN {
                    return;
                }
                self.open.insert(id.clone());
                out.push(Ordered::Started(event));
                // Its response or end may have come first: replay them, the response first.
                let (mut held, rest): (Vec<_>, Vec<_>) = self.early.drain(..).partition(|(r, _)| *r == id);
                self.early = rest.into();
                held.sort_by_key(|(_, event)| !matches!(event, PageEvent::ResponseReceived { .. }));
                for (_, event) in held {
                    self.take(event, out);
                }
            }
            PageEvent::ResponseReceived { ref request_id, .. } => {
                let id = request_id.clone();
                if let Some(pos) = self.awaiting_response.iter().position(|(r, _)| *r == id) {
                    let timestamp = self.awaiting_response.remove(pos).map(|(_, t)| t).unwrap_or_default();
                    out.push(Ordered::Responded(event));
                    out.push(Ordered::Ended { request_id: id, ending: Ending::Finished, timestamp });
                } else if self.open.contains(&id) {
                    self.responded.insert(id);
                    out.push(Ordered::Responded(event));
                } else {
                    self.hold(id, event);
                }
            }
            PageEvent::RequestFinished { request_id, timestamp } => {
                self.end(request_id, Ending::Finished, timestamp, out)
            }
            PageEvent::RequestFailed { request_id, error_text, timestamp } => {
                self.end(request_id, Ending::Failed(error_text), timestamp, out)
            }
            other => out.push(Ordered::Other(other)),
        }
    }

    fn end(&mut self, request_id: RequestId, ending: Ending, timestamp: f64, out: &mut Vec<Ordered>) {
        if !self.open.remove(&request_id) {
            let event = match ending {
                Ending::Finished => PageEvent::RequestFinished { request_id: request_id.clone(), timestamp },
                Ending::Failed(error_text) => {
                    PageEvent::RequestFailed { request_id: request_id.clone(), error_text, timestamp }
                }
            };
            self.hold(request_id, event);
            return;
        }
        push_bounded(&mut self.ended, request_id.clone());
        out.push(Ordered::Settled { request_id: request_id.clone() });
        let responded = self.responded.remove(&request_id);
        match ending {
            // Finished without its response yet: the response is on another channel; file the
            // request once it is here.
            Ending::Finished if !responded => push_bounded(&mut self.awaiting_response, (request_id, timestamp)),
            ending => out.push(Ordered::Ended { request_id, ending, timestamp }),
        }
    }

    fn hold(&mut self, request_id: RequestId, event: PageEvent) {
        if self.early.len() == REMEMBERED {
            self.early.pop_front();
        }
        self.early.push_back((request_id, event));
    }
}

fn push_bounded<T>(queue: &mut VecDeque<T>, item: T) {
    if queue.len() == REMEMBERED {
        queue.pop_front();
    }
    queue.push_back(item);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::chromium::kinds::ResourceType;
    use crate::browser::page::watch::cdp_events::RequestStart;

    fn started(id: &str) -> PageEvent {
        PageEvent::RequestStarted(RequestStart {
            request_id: id.into(),
            loader_id: "L".into(),
            resource_type: ResourceType::Fetch,
            url: "http://x/".into(),
            method: "GET".into(),
            ..Default::default()
        })
    }

    fn response(id: &str) -> PageEvent {
        PageEvent::ResponseReceived {
            request_id: id.into(),
            frame_id: None,
            resource_type: ResourceType::Fetch,
            status: 200,
            mime_type: "application/json".into(),
            failure: None,
            refreshes: false,
            at: None,
            timestamp: 0.0,
            headers: Vec::new(),
        }
    }

    fn finished(id: &str) -> PageEvent {
        PageEvent::RequestFinished { request_id: id.into(), timestamp: 2.0 }
    }

    fn failed(id: &str) -> PageEvent {
        PageEvent::RequestFailed { request_id: id.into(), error_text: "net::ERR_FAILED".into(), timestamp: 2.0 }
    }

    /// A compact picture of what came out: S(tarted), R(esponded), s(ettled), E(nded), F(ailed).
    fn trace(r: &mut Reorder, events: Vec<PageEvent>) -> String {
        let mut out = String::new();
        for event in events {
            for o in r.arrive(event) {
                let (c, id) = match &o {
                    Ordered::Started(PageEvent::RequestStarted(start)) => ('S', start.request_id.clone()),
                    Ordered::Responded(PageEvent::ResponseReceived { request_id, .. }) => ('R', request_id.clone()),
                    Ordered::Settled { request_id } => ('s', request_id.clone()),
                    Ordered::Ended { request_id, ending: Ending::Finished, .. } => ('E', request_id.clone()),
                    Ordered::Ended { request_id, ending: Ending::Failed(_), .. } => ('F', request_id.clone()),
                    other => panic!("unexpected {other:?}"),
                };
                out.push_str(&format!("{c}{id} "));
            }
        }
        out.trim_end().to_owned()
    }

    #[test]
    fn events_in_order_pass_through_in_order() {
        let mut r = Reorder::default();
        assert_eq!(trace(&mut r, vec![started("a"), response("a"), finished("a")]), "Sa Ra sa Ea");
    }

    #[test]
    fn a_response_and_end_before_the_start_wait_for_it() {
        let mut r = Reorder::default();
        assert_eq!(trace(&mut r, vec![finished("a"), response("a"), started("a")]), "Sa Ra sa Ea");
        let mut r = Reorder::default();
        assert_eq!(trace(&mut r, vec![failed("b"), started("b")]), "Sb sb Fb");
    }

    #[test]
    fn an_end_before_its_response_settles_at_once_and_is_filed_after_the_response() {
        let mut r = Reorder::default();
        assert_eq!(trace(&mut r, vec![started("a"), finished("a")]), "Sa sa", "no longer in flight");
        assert_eq!(trace(&mut r, vec![response("a")]), "Ra Ea");
    }

    #[test]
    fn a_failure_does_not_wait_for_a_response() {
        let mut r = Reorder::default();
        assert_eq!(trace(&mut r, vec![started("a"), failed("a")]), "Sa sa Fa");
    }

    #[test]
    fn a_redirect_hop_reported_after_its_chain_ended_is_dropped() {
        let mut r = Reorder::default();
        assert_eq!(trace(&mut r, vec![started("r"), response("r"), finished("r"), started("r")]), "Sr Rr sr Er");
    }

    #[test]
    fn a_redirect_hop_while_in_flight_is_another_start_of_the_same_request() {
        let mut r = Reorder::default();
        assert_eq!(trace(&mut r, vec![started("r"), started("r"), finished("r"), response("r")]), "Sr Sr sr Rr Er");
    }

    #[test]
    fn other_events_pass_straight_through() {
        let mut r = Reorder::default();
        let crash = PageEvent::Crashed;
        assert_eq!(r.arrive(crash.clone()), vec![Ordered::Other(crash)]);
    }

    #[test]
    fn held_events_are_bounded_oldest_first() {
        let mut r = Reorder::default();
        for i in 0..(REMEMBERED + 10) {
            assert!(r.arrive(finished(&format!("x{i}"))).is_empty());
        }
        assert_eq!(trace(&mut r, vec![started("x0")]), "Sx0", "the oldest held end was forgotten");
        assert_eq!(trace(&mut r, vec![started("x20")]), "Sx20 sx20", "a recent one is replayed");
    }

    #[test]
    fn a_forgotten_request_is_no_longer_open() {
        let mut r = Reorder::default();
        r.arrive(started("w"));
        r.forget("w");
        assert!(r.arrive(finished("w")).is_empty(), "its end is held like any unknown request's");
    }
}
