//! A popup's first load, which happens before its session adopts it as a tab (see
//! `session::tabs`): what can be recovered is recovered, and what cannot is said.
//!
//! V8 keeps the console messages and uncaught errors of a page and reports them again when the
//! Runtime domain is enabled anew, so those arrive in the tab's logs as if seen live. The
//! requests cannot be replayed: the page's resource timing names its fetch/XHR requests (with
//! their status where Chromium exposes it), and one note in the tab's logs lists them and says how
//! to see them in full (reload the tab).

use serde_json::Value;
use tokio::time::Instant;

use super::handle::Page;
use super::watch::now_ms;
use super::watch::records::Record;
use crate::browser::chromium::protocol::runtime;
use crate::browser::error::BrowserError;

const EARLY_REQUESTS_JS: &str = include_str!("../../js/early_requests.js");

impl Page {
    /// Recovers what this adopted popup did before it was adopted.
    pub async fn recover_first_load(&self, deadline: Instant) -> Result<(), BrowserError> {
        self.send(runtime::Disable {}, deadline).await?;
        self.send(runtime::Enable {}, deadline).await?;
        let early = self.call_helper(EARLY_REQUESTS_JS, &[], deadline).await?;
        if early["blank"] == true {
            // Adopted before it loaded anything: everything it does is seen live.
            return Ok(());
        }
        let count = early["count"].as_u64().unwrap_or(0);
        let listed: Vec<String> =
            early["requests"].as_array().map(|all| all.iter().map(describe).collect()).unwrap_or_default();
        let requests = if count == 1 { "the request".to_owned() } else { format!("the {count} requests") };
        let mut text = format!(
            "this tab loaded before the session adopted it: its console messages and errors so far are \
             in these logs, but {requests} it made so far are not in network.pull (page.reload with \
             this tab_id records them)"
        );
        if !listed.is_empty() {
            text.push_str(&format!("; its API calls: {}", listed.join(", ")));
        }
        self.watch().store().timeline.push(now_ms(), Record::Note(text));
        Ok(())
    }
}

/// `GET`-less `url → status` (status 0: not exposed by the browser).
fn describe(request: &Value) -> String {
    let url = request["url"].as_str().unwrap_or_default();
    match request["status"].as_u64() {
        Some(status) if status > 0 => format!("{url} → {status}"),
        _ => url.to_owned(),
    }
}
