//! `find.byRole`: finding an element by role and accessible name.
//!
//! It asks Chromium's accessibility tree (the screen reader's truth) and answers with a selector
//! the action methods accept: the role selector itself when it names exactly one element,
//! otherwise a CSS path to the first match.

use tokio::time::Instant;

use super::Locate;
use super::scripts::UniqueSelectorOf;
use super::selector::Selector;
use super::target::Target;
use crate::browser::error::BrowserError;

/// A selector for one element found by role.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub selector: String,
    pub count: u64,
}

impl Locate<'_> {
    pub(in crate::browser::page) async fn find_by_role(
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
        let found = self.call_on(UniqueSelectorOf, &query, &[], deadline).await.map_err(|err| match err {
            BrowserError::ElementNotFound(_) => BrowserError::ElementNotFound(source.clone()),
            other => other,
        })?;
        if found.count == 1 {
            return Ok(Found { selector: source, count: found.count });
        }
        Ok(Found { selector: found.selector, count: found.count })
    }
}
