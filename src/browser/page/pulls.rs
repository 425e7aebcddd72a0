//! `logs.pull`, `network.pull` and `network.body`: draining the page's signals, and the counts
//! actions report.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use tokio::time::Instant;

use super::handle::Page;
use super::signals::{ConsoleEntry, Level, Logs, NetworkEntry, PageError, SignalCounts, Signals};

/// How long a pull waits for bodies and source lines still being fetched.
const FETCH_WAIT: Duration = Duration::from_secs(1);
/// Bytes of a body shown in network.pull (network.body returns the whole).
pub const PULL_EXCERPT: usize = 2048;

/// Which finished requests a `network.pull` returns (and drains).
#[derive(Debug, Clone, Default)]
pub struct NetworkQuery {
    /// Only failed requests and status >= 400.
    pub only_errors: bool,
    /// Only URLs containing this.
    pub url_contains: Option<String>,
    /// Only these resource types (Fetch, XHR, Document, Script …).
    pub resource_types: Option<Vec<String>>,
}

impl NetworkQuery {
    fn wants(&self, entry: &NetworkEntry) -> bool {
        (!self.only_errors || entry.is_error())
            && (self.only_errors || !entry.browser_own || entry.is_error())
            && self.url_contains.as_deref().is_none_or(|part| entry.url.contains(part))
            && self
                .resource_types
                .as_ref()
                .is_none_or(|types| types.iter().any(|t| t.eq_ignore_ascii_case(&entry.resource_type)))
    }
}

/// A request still in flight.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PendingView {
    pub method: String,
    pub url: String,
    pub resource_type: String,
    /// Milliseconds since it started.
    pub age_ms: u64,
}

/// What `network.pull` returns.
#[derive(Debug, Default)]
pub struct NetworkPull {
    pub requests: Vec<NetworkEntry>,
    pub pending: Vec<PendingView>,
    pub dropped: u64,
}

impl Page {
    /// New error entries waiting since the last pulls.
    pub fn signal_counts(&self) -> SignalCounts {
        self.watch().signals().counts()
    }

    /// Waits (briefly) until `ready` holds for the signals, for data still being fetched.
    pub(super) async fn wait_for_fetches(&self, deadline: Instant, ready: impl Fn(&Signals) -> bool) {
        let until = (Instant::now() + FETCH_WAIT).min(deadline);
        while !ready(&self.watch().signals()) && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Drains console messages and page errors; keeps console entries at `level` or above.
    pub async fn pull_logs(&self, level: Level, deadline: Instant) -> Logs {
        // Everything the page logged before this call is in the buffers first.
        self.settle_events(deadline).await;
        self.wait_for_fetches(deadline, |s| !s.sources_pending(0)).await;
        let mut signals = self.watch().signals();
        let (console, console_dropped) = signals.console.drain();
        let (page_errors, errors_dropped) = signals.page_errors.drain();
        signals.reset_log_counts();
        let redactor = &signals.redactor;
        Logs {
            console: console
                .into_iter()
                .filter(|e| Level::of(&e.method) >= level)
                .map(|e| ConsoleEntry { text: redactor.text(&e.text), ..e })
                .collect(),
            page_errors: page_errors
                .into_iter()
                .map(|e| PageError {
                    message: redactor.text(&e.message),
                    stack: e.stack.as_deref().map(|s| redactor.text(s)),
                    ..e
                })
                .collect(),
            dropped: console_dropped + errors_dropped,
        }
    }

    /// Drains the finished requests `query` selects (others stay for a later pull), after giving
    /// bodies still being captured a moment to arrive; also lists the requests in flight.
    pub async fn pull_network(&self, query: &NetworkQuery, deadline: Instant) -> NetworkPull {
        self.settle_events(deadline).await;
        self.wait_for_fetches(deadline, |s| !s.bodies_pending(0)).await;
        let mut signals = self.watch().signals();
        let (all, dropped) = signals.network.drain();
        let (taken, kept): (Vec<_>, Vec<_>) = all.into_iter().partition(|e| query.wants(e));
        for entry in kept {
            signals.network.push("network", entry);
        }
        signals.recount_failed_requests();
        let requests = taken
            .iter()
            .map(|e| signals.shown(e, e.is_error() || (!query.only_errors && e.is_data()), PULL_EXCERPT))
            .collect();
        let now = Instant::now();
        let pending = signals
            .pending()
            .into_iter()
            .filter(|p| query.url_contains.as_deref().is_none_or(|part| p.url.contains(part)))
            .map(|p| PendingView {
                method: p.method.clone(),
                url: signals.redactor.text(&p.url),
                resource_type: p.resource_type.clone(),
                age_ms: now.saturating_duration_since(p.started).as_millis() as u64,
            })
            .collect();
        NetworkPull { requests, pending, dropped }
    }

    /// The whole captured response body of `request_id` (and whether it was cut at the cap).
    pub async fn response_body(&self, request_id: &str, deadline: Instant) -> Result<(String, bool), String> {
        self.settle_events(deadline).await;
        self.wait_for_fetches(deadline, |s| !s.bodies_pending(0)).await;
        self.watch().signals().whole_body(request_id)
    }
}
