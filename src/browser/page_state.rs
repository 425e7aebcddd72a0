//! What a session knows about its page between calls, kept current by one pump task per page.
//!
//! The pump drains the page's CDP event streams (they are unbounded: someone must always read them)
//! and folds them into two `watch` channels: the main frame's navigation state and the network
//! activity. Waiting methods (`page.goto`, `page.waitFor`) subscribe to these instead of polling.

use std::collections::{HashSet, VecDeque};

use futures_util::StreamExt;
use futures_util::stream::{BoxStream, SelectAll};
use tokio::sync::watch;
use tokio::time::Instant;

use super::events::PageEvent;

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
}

/// Requests that ended before we saw them start (events come through separate channels, so their
/// order across channels is not guaranteed). Bounded; old entries are forgotten.
const EARLY_ENDS_REMEMBERED: usize = 512;

/// The pump's side: folds events into the watch channels.
pub struct PageTracker {
    main_frame: String,
    nav: watch::Sender<NavState>,
    net: watch::Sender<NetState>,
    in_flight: HashSet<String>,
    ended_early: VecDeque<String>,
}

impl PageTracker {
    pub fn new(main_frame: String) -> (Self, PageWatch) {
        let (nav, nav_rx) = watch::channel(NavState::default());
        let (net, net_rx) = watch::channel(NetState { in_flight: 0, last_activity: Instant::now() });
        let tracker = Self { main_frame, nav, net, in_flight: HashSet::new(), ended_early: VecDeque::new() };
        (tracker, PageWatch { nav: nav_rx, net: net_rx })
    }

    pub fn apply(&mut self, event: PageEvent) {
        match event {
            PageEvent::Lifecycle { frame_id, loader_id, name } if frame_id == self.main_frame => {
                self.nav.send_modify(|nav| {
                    if nav.loader_id != loader_id {
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
            PageEvent::ResponseReceived { request_id, frame_id, resource_type, status }
                if resource_type == "Document" && frame_id.as_deref() == Some(self.main_frame.as_str()) =>
            {
                self.nav.send_modify(|nav| nav.document_status = Some((request_id, status)));
            }
            PageEvent::RequestStarted { request_id } => {
                if let Some(pos) = self.ended_early.iter().position(|id| *id == request_id) {
                    self.ended_early.remove(pos);
                } else if self.in_flight.insert(request_id) {
                    self.publish_net();
                }
            }
            PageEvent::RequestFinished { request_id } | PageEvent::RequestFailed { request_id } => {
                if self.in_flight.remove(&request_id) {
                    self.publish_net();
                } else {
                    if self.ended_early.len() == EARLY_ENDS_REMEMBERED {
                        self.ended_early.pop_front();
                    }
                    self.ended_early.push_back(request_id);
                }
            }
            PageEvent::Crashed => self.nav.send_modify(|nav| nav.crashed = true),
            _ => {}
        }
    }

    fn publish_net(&self) {
        let in_flight = self.in_flight.len();
        self.net.send_replace(NetState { in_flight, last_activity: Instant::now() });
    }

    /// Drains `events` until every stream has ended (the page is gone).
    pub async fn run(mut self, mut events: SelectAll<BoxStream<'static, PageEvent>>) {
        while let Some(event) = events.next().await {
            self.apply(event);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lifecycle(loader: &str, name: &str) -> PageEvent {
        PageEvent::Lifecycle { frame_id: "main".into(), loader_id: loader.into(), name: name.into() }
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
    fn subframe_lifecycle_is_ignored() {
        let (mut t, w) = PageTracker::new("main".into());
        t.apply(PageEvent::Lifecycle { frame_id: "child".into(), loader_id: "X".into(), name: "load".into() });
        assert!(!w.nav.borrow().loaded);
    }

    #[test]
    fn in_flight_counts_requests_even_when_the_end_arrives_first() {
        let (mut t, w) = PageTracker::new("main".into());
        t.apply(PageEvent::RequestStarted { request_id: "a".into() });
        t.apply(PageEvent::RequestStarted { request_id: "b".into() });
        assert_eq!(w.net.borrow().in_flight, 2);
        t.apply(PageEvent::RequestFinished { request_id: "a".into() });
        // "c" ends before its start is seen: it must not stay in flight forever.
        t.apply(PageEvent::RequestFailed { request_id: "c".into() });
        t.apply(PageEvent::RequestStarted { request_id: "c".into() });
        t.apply(PageEvent::RequestFailed { request_id: "b".into() });
        assert_eq!(w.net.borrow().in_flight, 0);
    }

    #[test]
    fn a_redirect_hop_does_not_count_twice() {
        let (mut t, w) = PageTracker::new("main".into());
        t.apply(PageEvent::RequestStarted { request_id: "r".into() });
        t.apply(PageEvent::RequestStarted { request_id: "r".into() });
        t.apply(PageEvent::RequestFinished { request_id: "r".into() });
        assert_eq!(w.net.borrow().in_flight, 0);
    }
}
