//! Looking at the page's structure: `find.byRole` and `axe.run`.
//!
//! `find.byRole` asks Chromium's accessibility tree (the screen reader's truth) and answers with a
//! selector the action methods accept: the role selector itself when it names exactly one element,
//! otherwise a CSS path to the first match. `axe.run` loads axe-core into the helper world, where
//! page scripts cannot interfere with it.

use serde_json::{Value, json};
use tokio::time::Instant;

use super::handle::Page;
use super::selector::Selector;
use super::target::Target;
use crate::browser::error::BrowserError;

const UNIQUE_SELECTOR_JS: &str = include_str!("../../js/unique_selector.js");
const AXE_RUN_JS: &str = include_str!("../../js/axe_run.js");

/// A selector for one element found by role.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub selector: String,
    pub count: u64,
}

impl Page {
    pub async fn find_by_role(
        &self,
        role: &str,
        name: Option<&str>,
        exact: bool,
        deadline: Instant,
    ) -> Result<Found, BrowserError> {
        let mut source = format!("role={role}");
        if let Some(name) = name {
            let quoted = serde_json::to_string(name).unwrap_or_default();
            source.push_str(&format!("[name={quoted}{}]", if exact { " s" } else { "" }));
        }
        let query = Target::parse(&source)?;
        if !matches!(query.selector(), Selector::Role(_)) {
            return Err(BrowserError::InvalidOption(format!("{role:?} is not a role name")));
        }
        let found = self.call_helper_on(UNIQUE_SELECTOR_JS, &query, &[], deadline).await.map_err(|err| match err {
            BrowserError::ElementNotFound(_) => BrowserError::ElementNotFound(source.clone()),
            other => other,
        })?;
        let count = found["count"].as_u64().unwrap_or_default();
        if count == 1 {
            return Ok(Found { selector: source, count });
        }
        Ok(Found { selector: found["selector"].as_str().unwrap_or_default().to_owned(), count })
    }

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
