//! `page.waitFor` on an element: until it is visible, hidden, attached or detached. The page is
//! read every [`POLL`] (`js/observe.js`) and the answer says how long it took and when, on the
//! document's clock, it happened — the time a panel rendered, without a probe of one's own.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::handle::Page;
use super::locate::scripts::Observe;
use super::locate::target::Target;
use crate::browser::error::BrowserError;

/// How often the element is looked at again.
const POLL: Duration = Duration::from_millis(25);

/// What `page.waitFor` waits for an element to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ElementState {
    /// At least one match is visible.
    Visible,
    /// No match is visible (none matching counts).
    Hidden,
    /// At least one element matches.
    Attached,
    /// No element matches.
    Detached,
}

/// How long a wait took, and when it ended on the document's clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Waited {
    pub elapsed_ms: u64,
    /// Ms since the current document started loading.
    pub t: i64,
}

impl ElementState {
    fn reached(self, count: u64, visible: u64) -> bool {
        match self {
            Self::Visible => visible > 0,
            Self::Hidden => visible == 0,
            Self::Attached => count > 0,
            Self::Detached => count == 0,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Self::Visible => "visible",
            Self::Hidden => "hidden",
            Self::Attached => "attached",
            Self::Detached => "detached",
        }
    }
}

impl Page {
    /// Waits until `target` is in `state`, or `deadline`.
    pub async fn wait_for_element(
        &self,
        target: &Target,
        state: ElementState,
        deadline: Instant,
    ) -> Result<Waited, BrowserError> {
        wait_until(self, target, state, deadline).await
    }
}

fn waited(page: &Page, started: Instant) -> Waited {
    Waited { elapsed_ms: started.elapsed().as_millis() as u64, t: page.seen().document_time() }
}

/// [`Page::wait_for_element`].
async fn wait_until(
    page: &Page,
    target: &Target,
    state: ElementState,
    deadline: Instant,
) -> Result<Waited, BrowserError> {
    let started = Instant::now();
    let mut seen = None;
    loop {
        match page.locate().call_on(Observe, target, &[], deadline).await {
            Ok(answer) => {
                seen = Some((answer.count, answer.visible));
                if state.reached(answer.count, answer.visible) {
                    return Ok(waited(page, started));
                }
            }
            // A ref whose element is gone is detached (and hidden).
            Err(BrowserError::StaleRef(_)) if matches!(state, ElementState::Detached | ElementState::Hidden) => {
                return Ok(waited(page, started));
            }
            Err(BrowserError::Timeout(_)) => break,
            // The deadline fell during a look: the page answered the ones before, so the
            // answer is what they saw, not "the page did not answer".
            Err(BrowserError::NoAnswer(_)) if seen.is_some() && Instant::now() >= deadline => break,
            Err(err) => return Err(err),
        }
        if Instant::now() + POLL >= deadline {
            break;
        }
        tokio::time::sleep(POLL).await;
    }
    let found = match seen {
        Some((count, visible)) => format!("{count} element(s) match, {visible} visible"),
        // Not one look finished: saying "0 match" would be a guess.
        None => "the page did not answer one look in that time (a script may be keeping it busy)".to_owned(),
    };
    Err(BrowserError::Timeout(format!(
        "page.waitFor timed out after {} ms waiting for {target} to be {}: {found}",
        started.elapsed().as_millis(),
        state.as_str(),
    )))
}
