//! `page.source`: lines of any script (or document) the page runs, from the browser's own copy,
//! so an agent can follow a stack trace or a listener's location without evaluating
//! `document.scripts` or fetching the file again.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use tokio::time::Instant;

use super::handle::Page;
use super::sources;
use crate::browser::error::BrowserError;

/// Lines around one line of a script.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SourceView {
    pub url: String,
    /// The lines, numbered, the asked-for line marked with `>`.
    pub lines: String,
    /// How many lines the file has.
    pub total: usize,
}

impl Page {
    /// The text of `url` as this page loaded it, split into lines (cached per page).
    pub(super) async fn source_lines(&self, url: &str, deadline: Instant) -> Option<Arc<Vec<String>>> {
        if let Some(lines) = self.watch().sources().get(url) {
            return Some(lines);
        }
        let text = sources::text_of(self.cdp_page(), self.target_id(), url, &self.watch().signals, deadline).await?;
        Some(self.watch().sources().insert(url, &text))
    }

    /// Lines `line - context ..= line + context` of `url` (1-based).
    pub async fn source(
        &self,
        url: &str,
        line: u32,
        context: u32,
        deadline: Instant,
    ) -> Result<SourceView, BrowserError> {
        let lines = self.source_lines(url, deadline).await.ok_or_else(|| {
            BrowserError::InvalidOption(format!(
                "this page has no script or document {url:?}: give the URL of a script the page loaded \
                 (as page errors, console entries and listeners name them)"
            ))
        })?;
        let shown = sources::excerpt(&lines, line, None, context).ok_or_else(|| {
            BrowserError::InvalidOption(format!("line {line} is past the end of {url} ({} lines)", lines.len()))
        })?;
        Ok(SourceView { url: url.to_owned(), lines: shown, total: lines.len() })
    }
}
