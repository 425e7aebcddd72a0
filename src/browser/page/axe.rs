//! `axe.run`: checking the page's accessibility with axe-core, loaded into the helper world once per
//! document, where page scripts cannot interfere with it.

use serde_json::{Value, json};
use tokio::time::Instant;

use super::handle::Page;
use crate::browser::error::BrowserError;

const AXE_RUN_JS: &str = include_str!("../../js/axe_run.js");

impl Page {
    /// Runs axe-core (`axe_source` is axe.min.js) and returns its violations.
    /// axe-core is loaded into the helper world once per document.
    pub async fn axe(&self, axe_source: &str, include: Option<&str>, deadline: Instant) -> Result<Value, BrowserError> {
        match self.call_helper(AXE_RUN_JS, &[json!(include)], deadline).await {
            Err(BrowserError::AxeUnavailable(_)) => {
                self.evaluate_in_helper_world(axe_source, deadline).await?;
                self.call_helper(AXE_RUN_JS, &[json!(include)], deadline).await
            }
            other => other,
        }
    }
}
