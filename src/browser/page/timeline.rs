//! `page.timeline` on a page: once the events so far are applied and the DOM watcher has reported
//! what it holds, the timeline as compact lines with the facts derived from it
//! (`watch::views::lines`).

use tokio::time::Instant;

use super::handle::Page;
use super::watch::views::lines::{self, EntryKind, Lines, Since};

/// What `page.timeline` returns.
pub type TimelineView = Lines;

impl Page {
    pub async fn timeline(
        &self,
        since: Since,
        kinds: &[EntryKind],
        url_contains: Option<&str>,
        max_chars: usize,
        deadline: Instant,
    ) -> TimelineView {
        self.flush_dom(None, deadline).await;
        self.settle_events(deadline).await;
        let page_url = self.watch().nav.borrow().url.clone();
        lines::render(&self.watch().store(), since, kinds, url_contains, &page_url, max_chars)
    }
}
