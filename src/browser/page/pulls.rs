//! `logs.pull`, `network.pull` and `network.body` on a page: each waits until the page's events so
//! far are applied (and bodies and source lines still being fetched have had a moment), then reads
//! its view of the timeline (`watch::views::logs`, `watch::views::network`).

use std::time::Duration;

use tokio::time::Instant;

use super::handle::Page;
use super::watch::Store;
use super::watch::now_ms;
use super::watch::records::Record;
use super::watch::views::logs::{self, Logs};
use super::watch::views::network::{self, NetworkPull, NetworkQuery};
use super::watch::views::{self, SignalCounts};
use crate::browser::chromium::kinds::Level;

/// How long a pull waits for bodies and source lines still being fetched.
const FETCH_WAIT: Duration = Duration::from_secs(1);

impl Page {
    /// New error entries waiting since the last pulls.
    pub fn signal_counts(&self) -> SignalCounts {
        views::signal_counts(&self.watch().store())
    }

    /// Waits (briefly) until `ready` holds for the store, for data still being fetched: woken by
    /// each finding the pump applies, so a stack or body that arrives in a millisecond costs one.
    pub(super) async fn wait_for_fetches(&self, deadline: Instant, ready: impl Fn(&Store) -> bool) {
        let until = (Instant::now() + FETCH_WAIT).min(deadline);
        let mut found = self.watch().found.clone();
        loop {
            found.borrow_and_update();
            if ready(&self.watch().store()) {
                return;
            }
            if Instant::now() >= until {
                return;
            }
            // An event (not a finding) may settle it too: look again every 10 ms regardless.
            let look_again = (Instant::now() + Duration::from_millis(10)).min(until);
            tokio::select! {
                changed = found.changed() => if changed.is_err() { return },
                _ = tokio::time::sleep_until(look_again) => {}
            }
        }
    }

    /// Console messages, page errors and notes since the last pull (console entries at `level` and
    /// above), at most one pull's budget of them.
    pub async fn pull_logs(&self, level: Level, deadline: Instant) -> Logs {
        // Everything the page logged before this call is in the timeline first.
        self.settle_events(deadline).await;
        self.wait_for_fetches(deadline, |s| !sources_pending(s, s.timeline.logs_cursor())).await;
        logs::pull(&mut self.watch().store(), level)
    }

    /// The answered requests `query` selects that no pull returned yet (others stay for a later
    /// pull), after giving bodies still being captured a moment to arrive; and those in flight.
    pub async fn pull_network(&self, query: &NetworkQuery, deadline: Instant) -> NetworkPull {
        self.settle_events(deadline).await;
        self.wait_for_fetches(deadline, |s| !bodies_pending(s, 0) && !answers_settling(s)).await;
        network::pull(&mut self.watch().store(), query, now_ms())
    }

    /// The whole captured response body of `request_id` (and whether it was cut at the cap).
    pub async fn response_body(&self, request_id: &str, deadline: Instant) -> Result<(String, bool), String> {
        self.settle_events(deadline).await;
        self.wait_for_fetches(deadline, |s| !bodies_pending(s, 0)).await;
        network::whole_body(&self.watch().store(), request_id)
    }
}

/// True while a body of a request after `since` is still being captured.
pub(super) fn bodies_pending(store: &Store, since: u64) -> bool {
    store.timeline.since(since).any(|e| matches!(&e.record, Record::Request(r) if r.body_pending))
}

/// True while a request is answered and its body neither finished nor given up (for at most the
/// reducer's grace).
fn answers_settling(store: &Store) -> bool {
    store.timeline.iter().any(|e| matches!(&e.record, Record::Request(r) if r.response.is_some() && !r.is_settled() && !r.resource_type.is_long_lived()))
}

/// True while a source excerpt of an entry after `since` is still being fetched.
pub(super) fn sources_pending(store: &Store, since: u64) -> bool {
    store.timeline.since(since).any(|e| match &e.record {
        Record::Console(c) => c.source_pending,
        Record::PageError(p) => p.source_pending,
        _ => false,
    })
}
