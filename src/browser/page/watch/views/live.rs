//! The live feed: each signal a page files — console message, page error, finished request,
//! dialog, download, popup — and its navigations and crash, published as it happens to whoever
//! subscribed (`events.subscribe`). A broadcast channel: publishing never waits, so a subscriber
//! that reads slowly never holds up the page or anyone else; one that falls more than
//! [`FEED_CAPACITY`] events behind loses the oldest and is told how many. The feed ends (its
//! subscribers see it closed) when the page goes. Knows neither the pump nor the subscribers.

use std::sync::{Arc, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use super::super::notes::{RequestOutcome, Signal};
use super::places::{Location, Places};
use super::wording;

/// Events a subscriber may fall behind by before it loses the oldest.
pub const FEED_CAPACITY: usize = 256;

/// What kind of thing happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LiveKind {
    Console,
    #[serde(rename = "pageerror")]
    PageError,
    Network,
    Dialog,
    Navigation,
    Download,
    Popup,
    Crash,
}

/// One thing that happened on a page, as a subscriber gets it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LiveEvent {
    pub kind: LiveKind,
    /// When it was seen: milliseconds since the Unix epoch.
    pub at: u64,
    /// An error: a console error, a page error, a failed request (status ≥ 400 or no answer), a
    /// crash.
    pub error: bool,
    /// One line: the message, `POST /api/x → 422`, the new URL …
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Where in the page's code it came from (console calls, page errors), read through the
    /// session's source maps as the subscriber is sent it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
}

/// How far before now a time the browser reports may lie and still be when the thing happened:
/// a response served from the cache reports when it was first fetched.
const PAST_LIMIT_MS: u64 = 2_000;

impl LiveEvent {
    /// An event that happened now.
    pub fn new(kind: LiveKind, error: bool, text: String) -> Self {
        Self { kind, at: now_ms(), error, text, url: None, status: None, location: None }
    }

    /// What a subscriber is told of `signal`, seen at `now` (ms since the Unix epoch).
    pub fn of(signal: Signal, now: u64) -> Self {
        let event = |kind, error, text| Self { kind, at: now, error, text, url: None, status: None, location: None };
        match signal {
            Signal::Request { method, url, outcome, page_at } => {
                let error = match &outcome {
                    RequestOutcome::Status(status) => *status >= 400,
                    RequestOutcome::Failed(_) => true,
                    RequestOutcome::Cancelled => false,
                };
                let status = match &outcome {
                    RequestOutcome::Status(status) => Some(*status),
                    _ => None,
                };
                let text = wording::request(&method, &url, &outcome);
                Self { url: Some(url), status, ..event(LiveKind::Network, error, text) }.at(page_at)
            }
            Signal::Navigated { url } => Self { url: Some(url.clone()), ..event(LiveKind::Navigation, false, url) },
            Signal::Console { text, error, location, page_at } => {
                let location = location.map(Location::served);
                Self { location, ..event(LiveKind::Console, error, text) }.at(Some(page_at))
            }
            Signal::PageError { message, location, page_at } => {
                let location = location.map(Location::served);
                Self { location, ..event(LiveKind::PageError, true, message) }.at(Some(page_at))
            }
            Signal::Dialog(note) => event(LiveKind::Dialog, false, wording::dialog(&note)),
            Signal::Download(note) => event(LiveKind::Download, false, wording::download(&note)),
            Signal::Popup { tab, url } => event(LiveKind::Popup, false, wording::popup(&tab, &url)),
            Signal::Crashed => event(LiveKind::Crash, true, "the page's renderer process crashed".into()),
        }
    }

    /// Its location read through `places` (the script's map fetched first, see `Page::live_maps`).
    pub fn read_through(&mut self, places: &Places) {
        if let Some(location) = &mut self.location {
            *location = places.located(&location.served);
        }
    }

    /// Dated by the browser's own clock (`at`, ms since the Unix epoch) when it says — the order
    /// things happened in the page, which the order CDP's events reach us in does not keep —
    /// unless that time is implausible.
    pub fn at(mut self, at: Option<u64>) -> Self {
        if let Some(at) = at.filter(|at| *at <= self.at + PAST_LIMIT_MS && *at + PAST_LIMIT_MS >= self.at) {
            self.at = at;
        }
        self
    }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// The channel is made by the first subscriber: its FEED_CAPACITY slots (~50 KB) would otherwise
/// sit in every page, warm sessions' included, most of which nobody ever subscribes to.
#[derive(Debug, Clone, Default)]
pub struct LiveFeed(Arc<OnceLock<broadcast::Sender<LiveEvent>>>);

impl LiveFeed {
    /// Whether anyone ever subscribed (else there is no one to build events for).
    pub fn wanted(&self) -> bool {
        self.0.get().is_some()
    }

    /// Publishes an event to the current subscribers (none: it goes nowhere).
    pub fn publish(&self, event: LiveEvent) {
        if let Some(sender) = self.0.get() {
            let _ = sender.send(event);
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<LiveEvent> {
        self.0.get_or_init(|| broadcast::channel(FEED_CAPACITY).0).subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_takes_the_browsers_time_unless_it_is_implausible() {
        let now = LiveEvent::new(LiveKind::Console, false, String::new()).at;
        let earlier = LiveEvent::new(LiveKind::Network, true, String::new()).at(Some(now - 40));
        assert_eq!(earlier.at, now - 40);
        // A cached response reports when it was first fetched: not when it happened here.
        let cached = LiveEvent::new(LiveKind::Network, false, String::new()).at(Some(now - 3_600_000));
        assert!(cached.at >= now);
        assert!(LiveEvent::new(LiveKind::Console, false, String::new()).at(None).at >= now);
    }

    #[tokio::test]
    async fn a_subscriber_that_falls_behind_is_told_how_many_it_lost() {
        let feed = LiveFeed::default();
        let mut slow = feed.subscribe();
        for i in 0..FEED_CAPACITY + 10 {
            feed.publish(LiveEvent::new(LiveKind::Console, false, i.to_string()));
        }
        assert!(matches!(slow.recv().await, Err(broadcast::error::RecvError::Lagged(10))));
        assert_eq!(slow.recv().await.unwrap().text, "10");
    }
}
