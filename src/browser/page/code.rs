//! `page.source`: lines of any script (or document) the page runs, from the browser's own copy,
//! so an agent can follow a stack trace or a listener's location without evaluating
//! `document.scripts` or fetching the file again; and the URLs of scripts a listener's location
//! names only by id ([`Page::know_scripts`]).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use tokio::time::Instant;

use super::handle::Page;
use super::watch::dom::ASYNC_DEPTH;
use super::watch::sources;
use crate::browser::chromium::ids::TargetId;
use crate::browser::chromium::protocol::debugger;
use crate::browser::chromium::protocol::runtime::SetAsyncCallStackDepth;
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

impl Page {
    /// The text of `url` as this page loaded it, split into lines (cached per page).
    pub(super) async fn source_lines(&self, url: &str, deadline: Instant) -> Option<Arc<Vec<String>>> {
        if let Some(lines) = self.watch().store().sources.get(url) {
            return Some(lines);
        }
        let captured = || self.watch().store().bodies.text_for_url(url);
        let text =
            sources::text_of(self.cdp_page(), &TargetId::from(self.target_id()).main_frame(), url, captured, deadline)
                .await?;
        Some(self.watch().store().sources.insert(url, &text))
    }

    /// Lines `line - context ..= line + context` of `url` (1-based), or the whole file (up to
    /// [`WHOLE_FILE_LINES`]) without a line. A relative URL is resolved against the page's.
    pub async fn source(
        &self,
        url: &str,
        line: Option<u32>,
        context: u32,
        deadline: Instant,
    ) -> Result<SourceView, BrowserError> {
        let base = self.watch().nav.borrow().url.clone();
        let url = url::Url::parse(&base).and_then(|b| b.join(url)).map(String::from).unwrap_or_else(|_| url.to_owned());
        let url = url.as_str();
        let lines = self.source_lines(url, deadline).await.ok_or_else(|| {
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
}

impl Page {
    /// Makes sure the URLs of the scripts `ids` are known (a listener's location names its script by
    /// id only). The Debugger domain is off (on, it costs every action a few milliseconds of the
    /// page's time): when one is not known, it is turned on for a moment, which replays every
    /// script's `scriptParsed`, with pauses skipped meanwhile.
    pub(super) async fn know_scripts<'a>(&self, ids: impl IntoIterator<Item = &'a str>, deadline: Instant) {
        let unknown = {
            let store = self.watch().store();
            ids.into_iter().any(|id| !id.is_empty() && store.script_url(id).is_none())
        };
        if unknown && self.send(debugger::Enable {}, deadline).await.is_ok() {
            let _ = self.send(debugger::SetSkipAllPauses { skip: true }, deadline).await;
            self.settle_events(deadline).await;
            let _ = self.send(debugger::Disable {}, deadline).await;
            // Turning the Debugger off turns the async stack traces off too: back on.
            let _ = self.send(SetAsyncCallStackDepth { max_depth: ASYNC_DEPTH }, deadline).await;
        }
    }
}
