//! Navigating and waiting: `page.goto`, `page.reload`, `page.waitFor`.
//!
//! A navigation is finished when a document *newer than the one before the call* reaches the
//! requested state; following the page's own redirects (a JS redirect before load) is therefore
//! natural. `networkidle` means no request in flight for 500 ms, tracked by the page's pump.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::error::BrowserError;
use super::page_state::NavState;
use super::session::Session;

/// How long the network must be quiet for `networkidle`.
pub const NETWORK_IDLE_QUIET: Duration = Duration::from_millis(500);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WaitUntil {
    Load,
    #[serde(rename = "domcontentloaded")]
    DomContentLoaded,
    #[default]
    NetworkIdle,
}

impl WaitUntil {
    fn reached(self, nav: &NavState) -> bool {
        match self {
            Self::DomContentLoaded => nav.dom_content_loaded,
            Self::Load | Self::NetworkIdle => nav.loaded,
        }
    }
    fn as_str(self) -> &'static str {
        match self {
            Self::Load => "load",
            Self::DomContentLoaded => "domcontentloaded",
            Self::NetworkIdle => "networkidle",
        }
    }
}

/// Where the page ended up.
#[derive(Debug, Clone, PartialEq)]
pub struct Landed {
    pub url: String,
    pub title: String,
    /// HTTP status of the main document, when it came from the network.
    pub status: Option<u16>,
}

impl Session {
    pub async fn goto(&self, url: &str, wait_until: WaitUntil, deadline: Instant) -> Result<Landed, BrowserError> {
        let before = self.watch.nav.borrow().loader_id.clone();
        let answer = self.cdp("Page.navigate", json!({ "url": url }), deadline).await?;
        if let Some(error) = answer.get("errorText").and_then(Value::as_str).filter(|e| !e.is_empty()) {
            return Err(BrowserError::NavigationFailed { url: url.to_owned(), reason: error.to_owned() });
        }
        // No loaderId: a same-document navigation (only the fragment changed); nothing to wait for.
        if answer.get("loaderId").and_then(Value::as_str).is_some() {
            self.wait_for_new_document(&before, wait_until, deadline, &format!("page.goto({url})")).await?;
        }
        self.landed(deadline).await
    }

    pub async fn reload(&self, wait_until: WaitUntil, deadline: Instant) -> Result<Landed, BrowserError> {
        let before = self.watch.nav.borrow().loader_id.clone();
        self.cdp("Page.reload", json!({}), deadline).await?;
        self.wait_for_new_document(&before, wait_until, deadline, "page.reload").await?;
        self.landed(deadline).await
    }

    /// Waits for the current document to reach `state` (it may already have).
    pub async fn wait_for_state(&self, state: WaitUntil, deadline: Instant) -> Result<(), BrowserError> {
        let mut nav = self.watch.nav.clone();
        let waited = tokio::time::timeout_at(deadline, async {
            nav.wait_for(|n| state.reached(n) || n.crashed).await.map(|n| n.crashed)
        })
        .await;
        match waited {
            Ok(Ok(true)) => return Err(crashed()),
            Ok(Ok(false)) => {}
            Ok(Err(_)) => return Err(page_gone()),
            Err(_) => {
                return Err(BrowserError::Timeout(format!("page.waitFor timed out waiting for {}", state.as_str())));
            }
        }
        if state == WaitUntil::NetworkIdle {
            self.wait_for_quiet_network(NETWORK_IDLE_QUIET, deadline, "page.waitFor(networkidle)").await?;
        }
        Ok(())
    }

    async fn wait_for_new_document(
        &self,
        before: &str,
        wait_until: WaitUntil,
        deadline: Instant,
        what: &str,
    ) -> Result<(), BrowserError> {
        let mut nav = self.watch.nav.clone();
        let waited = tokio::time::timeout_at(deadline, async {
            nav.wait_for(|n| n.crashed || (n.loader_id != before && wait_until.reached(n))).await.map(|n| n.crashed)
        })
        .await;
        match waited {
            Ok(Ok(true)) => return Err(crashed()),
            Ok(Ok(false)) => {}
            Ok(Err(_)) => return Err(page_gone()),
            Err(_) => {
                return Err(BrowserError::Timeout(format!(
                    "{what} timed out waiting for the {} event",
                    if wait_until == WaitUntil::DomContentLoaded { "DOMContentLoaded" } else { "load" }
                )));
            }
        }
        if wait_until == WaitUntil::NetworkIdle {
            self.wait_for_quiet_network(NETWORK_IDLE_QUIET, deadline, what).await?;
        }
        Ok(())
    }

    /// Waits until no request has been in flight for `quiet`.
    pub async fn wait_for_quiet_network(
        &self,
        quiet: Duration,
        deadline: Instant,
        what: &str,
    ) -> Result<(), BrowserError> {
        let mut net = self.watch.net.clone();
        loop {
            let state = net.borrow_and_update().clone();
            let now = Instant::now();
            if state.in_flight == 0 && now >= state.last_activity + quiet {
                return Ok(());
            }
            if now >= deadline {
                return Err(BrowserError::Timeout(format!(
                    "{what} timed out waiting for the network to be idle for {} ms ({} request(s) still in flight)",
                    quiet.as_millis(),
                    state.in_flight
                )));
            }
            let wake = if state.in_flight == 0 { (state.last_activity + quiet).min(deadline) } else { deadline };
            tokio::select! {
                _ = tokio::time::sleep_until(wake) => {}
                changed = net.changed() => if changed.is_err() { return Err(page_gone()) },
            }
        }
    }

    /// The page's URL and title after a navigation, plus the document's HTTP status.
    async fn landed(&self, deadline: Instant) -> Result<Landed, BrowserError> {
        let answer = self
            .cdp(
                "Runtime.evaluate",
                json!({ "expression": "({ url: location.href, title: document.title })", "returnByValue": true }),
                deadline,
            )
            .await?;
        let value = &answer["result"]["value"];
        let nav = self.watch.nav.borrow().clone();
        let status = nav.document_status.filter(|(request, _)| *request == nav.loader_id).map(|(_, status)| status);
        Ok(Landed {
            url: value["url"].as_str().unwrap_or(&nav.url).to_owned(),
            title: value["title"].as_str().unwrap_or_default().to_owned(),
            status,
        })
    }
}

fn crashed() -> BrowserError {
    BrowserError::Unavailable("this session's page crashed (its renderer process died)".into())
}

fn page_gone() -> BrowserError {
    BrowserError::Unavailable("this session's page is gone".into())
}
