//! A new tab's start: copies of the routes (`network.route`) and init scripts
//! (`page.addInitScript`) of the tab that opened it, so a popup of a mocked or stubbed page is
//! mocked and stubbed the same way. Later changes on either tab stay on that tab.

use std::sync::Arc;

use tokio::time::Instant;

use super::handle::Page;
use crate::browser::error::BrowserError;
use crate::egress::EgressPolicy;

impl Page {
    /// Gives this page the routes and init scripts `from` has now.
    pub async fn inherit(&self, from: &Page, policy: Arc<EgressPolicy>, deadline: Instant) -> Result<(), BrowserError> {
        for (_, source) in from.init_script_list() {
            self.add_init_script(&source, deadline).await?;
        }
        for route in from.routes() {
            self.route(route.glob(), route.action.clone(), policy.clone(), deadline).await?;
        }
        Ok(())
    }

    /// The URL and title, or what the pump last saw when the page does not answer in time (a tab
    /// busy in a long task).
    pub async fn url_and_title(&self, deadline: Instant) -> (String, String) {
        const PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);
        match self.landed(deadline.min(Instant::now() + PATIENCE)).await {
            Ok(landed) => (landed.url, landed.title),
            Err(_) => (self.watch().nav.borrow().url.clone(), String::new()),
        }
    }
}
