//! `find.byRole`: finding an element by role and accessible name.
//!
//! It asks Chromium's accessibility tree (the screen reader's truth) and answers with a selector
//! the action methods accept: the role selector itself when it names exactly one element,
//! otherwise a CSS path to the first match.

use tokio::time::Instant;

use super::handle::Page;
use super::selector::Selector;
use super::target::Target;
use crate::browser::error::BrowserError;

const UNIQUE_SELECTOR_JS: &str = include_str!("../../js/unique_selector.js");

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
}
