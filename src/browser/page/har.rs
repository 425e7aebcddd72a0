//! `network.har` on a page: the timeline's requests as a HAR 1.2 log (see `watch::views::har`),
//! once the events so far are applied; nothing is drained.

use serde_json::Value;
use tokio::time::Instant;

use super::handle::Page;
use super::pulls::bodies_pending;
use super::watch::views::har;

impl Page {
    /// The HAR 1.2 log of the page's requests; with `bodies`, their captured body excerpts.
    pub async fn har(&self, bodies: bool, deadline: Instant) -> Value {
        self.settle_events(deadline).await;
        if bodies {
            self.wait_for_fetches(deadline, |s| !bodies_pending(s, 0)).await;
        }
        har::log(&self.watch().store(), bodies)
    }
}
