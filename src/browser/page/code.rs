//! `page.source`: lines of any script (or document) the page runs, from the browser's own copy,
//! so an agent can follow a stack trace or a listener's location without evaluating
//! `document.scripts` or fetching the file again.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use tokio::time::Instant;

use super::handle::Page;
use super::watch::sources;
use crate::browser::error::BrowserError;

/// Lines of a script.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SourceView {
    /// The script's absolute URL.
    pub url: String,
    /// The lines as text, each numbered (`  12 | …`); an asked-for line is marked with `>`.
    pub lines: String,
    /// How many lines the file has.
    pub total: usize,
}

/// Lines shown of a whole file, at most (then a note says how many more there are).
const WHOLE_FILE_LINES: u32 = 300;

/// The text of `url` as `page` loaded it, split into lines (cached per page).
pub(super) async fn source_lines(page: &Page, url: &str, deadline: Instant) -> Option<Arc<Vec<String>>> {
    if let Some(lines) = page.watch().store().sources.get(url) {
        return Some(lines);
    }
    let captured = || page.watch().store().bodies.text_for_url(url);
    let text = sources::text_of(&page.page, &page.target_id.main_frame(), url, captured, deadline).await?;
    Some(page.watch().store().sources.insert(url, &text))
}

impl Page {
    /// Lines `line - context ..= line + context` of `url` (1-based), or the whole file (up to
    /// [`WHOLE_FILE_LINES`]) without a line. A relative URL is resolved against the page's.
    pub async fn source(
        &self,
        url: &str,
        line: Option<u32>,
        context: u32,
        deadline: Instant,
    ) -> Result<SourceView, BrowserError> {
        lines_of(self, url, line, context, deadline).await
    }
}

/// [`Page::source`].
async fn lines_of(
    page: &Page,
    url: &str,
    line: Option<u32>,
    context: u32,
    deadline: Instant,
) -> Result<SourceView, BrowserError> {
    let base = page.watch().nav.borrow().url.clone();
    let url = url::Url::parse(&base).and_then(|b| b.join(url)).map(String::from).unwrap_or_else(|_| url.to_owned());
    let url = url.as_str();
    let lines = source_lines(page, url, deadline).await.ok_or_else(|| {
        BrowserError::InvalidOption(format!(
            "this page has no script or document {url:?}: give the URL of a script the page loaded \
             (as page errors, console entries and listeners name them)"
        ))
    })?;
    let shown = match line {
        Some(line) => sources::excerpt(&lines, line, None, context).ok_or_else(|| {
            BrowserError::InvalidOption(format!("line {line} is past the end of {url} ({} lines)", lines.len()))
        })?,
        None => {
            let mut whole = sources::numbered(&lines, 1, WHOLE_FILE_LINES).unwrap_or_default();
            if lines.len() > WHOLE_FILE_LINES as usize {
                whole.push_str(&format!(
                    "\n… {} more lines (give line and context to see them)",
                    lines.len() - WHOLE_FILE_LINES as usize
                ));
            }
            whole
        }
    };
    Ok(SourceView { url: url.to_owned(), lines: shown, total: lines.len() })
}
