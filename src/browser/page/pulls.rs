//! `logs.pull` and `network.pull`: draining the page's signals, and the counts actions report.

use std::time::Duration;

use tokio::time::Instant;

use super::handle::Page;
use super::signals::{Level, Logs, NetworkEntry, SignalCounts};

/// How long `network.pull` waits for error bodies still being fetched.
const BODY_WAIT: Duration = Duration::from_secs(1);

impl Page {
    /// New error entries waiting since the last pulls.
    pub fn signal_counts(&self) -> SignalCounts {
        self.watch().signals().counts()
    }

    /// Drains console messages and page errors; keeps console entries at `level` or above.
    pub async fn pull_logs(&self, level: Level, deadline: Instant) -> Logs {
        // Everything the page logged before this call is in the buffers first.
        self.settle_events(deadline).await;
        let mut signals = self.watch().signals();
        let (console, console_dropped) = signals.console.drain();
        let (page_errors, errors_dropped) = signals.page_errors.drain();
        signals.reset_log_counts();
        Logs {
            console: console.into_iter().filter(|e| Level::of(&e.kind) >= level).collect(),
            page_errors,
            dropped: console_dropped + errors_dropped,
        }
    }

    /// Drains finished requests (only failed ones with `only_errors`), after giving error bodies
    /// still being fetched a moment to arrive.
    pub async fn pull_network(&self, only_errors: bool, deadline: Instant) -> (Vec<NetworkEntry>, u64) {
        self.settle_events(deadline).await;
        let wait_until = (Instant::now() + BODY_WAIT).min(deadline);
        while self.watch().signals().bodies_pending() && Instant::now() < wait_until {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let mut signals = self.watch().signals();
        let (entries, dropped) = signals.network.drain();
        signals.reset_network_counts();
        (entries.into_iter().filter(|e| !only_errors || e.is_error()).collect(), dropped)
    }
}
