//! The stacks behind the DOM watcher's cause ids: who made a change.
//!
//! The DOM watcher names the changes of each observer callback with a cause id and hands over the
//! stack behind it (see `dom`); the stacks are fetched as they come (`Debugger.getStackTrace`, a
//! command on the page's task set) and kept here per document, bounded ([`MAX_CAUSES`]). How a
//! stack reads — by whom, reacting to what — is the views' (`views::reactions`).

use std::collections::VecDeque;

use super::stacks::Stack;

/// Cause stacks kept per page (the oldest go first).
pub const MAX_CAUSES: usize = 512;

#[derive(Debug)]
struct Cause {
    document: u64,
    id: u32,
    /// When it was announced (ms since the Unix epoch), for waiting on the ones an action caused.
    filed: f64,
    stack: Option<Stack>,
    pending: bool,
}

/// The cause stacks of one page.
#[derive(Debug, Default)]
pub struct CauseStore {
    causes: VecDeque<Cause>,
}

impl CauseStore {
    /// Cause `id` of `document` was announced at `now`; its stack is being fetched.
    pub fn announced(&mut self, document: u64, id: u32, now: f64) {
        if self.causes.len() == MAX_CAUSES {
            self.causes.pop_front();
        }
        self.causes.push_back(Cause { document, id, filed: now, stack: None, pending: true });
    }

    /// The stack of cause `id` of `document` (None: it could not be had).
    pub fn resolved(&mut self, document: u64, id: u32, stack: Option<Stack>) {
        if let Some(cause) = self.causes.iter_mut().rev().find(|c| c.document == document && c.id == id) {
            cause.stack = stack.filter(|s| !s.is_empty());
            cause.pending = false;
        }
    }

    pub fn get(&self, document: u64, id: u32) -> Option<&Stack> {
        self.causes.iter().rev().find(|c| c.document == document && c.id == id)?.stack.as_ref()
    }

    /// Whether a cause announced at or after `since` (ms since the Unix epoch) is still being fetched.
    pub fn pending_since(&self, since: f64) -> bool {
        self.causes.iter().rev().take_while(|c| c.filed >= since).any(|c| c.pending)
    }

    /// Every stack known.
    pub fn stacks(&self) -> impl Iterator<Item = &Stack> {
        self.causes.iter().filter_map(|c| c.stack.as_ref())
    }

    /// The first of `ids` (of `document`) whose stack is known.
    pub fn first_of(&self, document: u64, ids: &[u32]) -> Option<&Stack> {
        ids.iter().find_map(|id| self.get(document, *id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn frame(function: &str, line: u64) -> serde_json::Value {
        json!({"functionName": function, "url": "http://app/deploy/app.js", "lineNumber": line - 1, "columnNumber": 0})
    }

    #[test]
    fn the_store_is_bounded_and_knows_what_is_still_being_fetched() {
        let mut causes = CauseStore::default();
        for id in 0..(MAX_CAUSES as u32 + 10) {
            causes.announced(1, id, f64::from(id));
        }
        assert!(causes.get(1, 5).is_none());
        assert!(causes.pending_since(500.0));
        let stack = Stack::parse(&json!({"callFrames": [frame("f", 1)]}));
        causes.resolved(1, MAX_CAUSES as u32 + 9, Some(stack.clone()));
        assert_eq!(causes.get(1, MAX_CAUSES as u32 + 9), Some(&stack));
        assert_eq!(causes.get(2, MAX_CAUSES as u32 + 9), None, "another document's cause ids are its own");
        assert!(!causes.pending_since(MAX_CAUSES as f64 + 9.0));
    }
}
