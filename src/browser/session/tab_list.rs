//! The list of a session's tabs and which one is active: the state `tabs` works on, kept apart
//! so the session can hold it without depending on `tabs`.

use crate::browser::page::Page;

pub(super) struct Tabs {
    pub(super) list: Vec<Page>,
    pub(super) active: usize,
    /// Targets of tabs the session closed itself, newest last: Chromium may still list one for a
    /// moment, and it must not be adopted again as a popup.
    closed: Vec<String>,
}

/// Closed targets remembered.
const CLOSED_REMEMBERED: usize = 16;

impl Tabs {
    pub(super) fn new(first: Page) -> Self {
        Self { list: vec![first], active: 0, closed: Vec::new() }
    }

    /// Remembers that the session closed the tab of `target`.
    pub(super) fn remember_closed(&mut self, target: &str) {
        if self.closed.len() == CLOSED_REMEMBERED {
            self.closed.remove(0);
        }
        self.closed.push(target.to_owned());
    }

    /// Whether the session closed the tab of `target` itself.
    pub(super) fn was_closed(&self, target: &str) -> bool {
        self.closed.iter().any(|t| t == target)
    }
}
