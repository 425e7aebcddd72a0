//! Element refs (`e5`): short names page.snapshot gives the elements an agent can act on.
//!
//! A ref is bound to one element: its backend node id (Chromium's id for a DOM node, never reused
//! within a renderer) in a given frame, issued while a given main document was current. Acting on
//! a ref resolves exactly that node; if the main document has changed since, the node is gone, or
//! it is no longer attached to a live document, the call fails with `stale_ref` — it never falls
//! back to some other element. An element that survives between snapshots keeps its ref.

use std::collections::HashMap;

use crate::browser::chromium::ids::{FrameId, LoaderId};

/// More refs than this in one document and the table starts over (all older refs go stale).
const MAX_REFS: usize = 100_000;

/// Where a ref points.
#[derive(Debug, Clone, PartialEq)]
pub struct RefTarget {
    /// The frame the element is in (the page's target id for the main frame).
    pub frame_id: FrameId,
    pub backend_node_id: i64,
}

#[derive(Debug, Default)]
pub struct RefTable {
    /// The main document the refs were issued for.
    loader: LoaderId,
    next: u64,
    by_node: HashMap<i64, String>,
    by_ref: HashMap<String, RefTarget>,
}

impl RefTable {
    /// The ref for an element, issuing a new one if it has none in the current document.
    pub fn issue(&mut self, loader: &str, target: RefTarget) -> String {
        if self.loader != loader || self.by_ref.len() >= MAX_REFS {
            self.by_node.clear();
            self.by_ref.clear();
            self.loader = loader.into();
        }
        if let Some(existing) = self.by_node.get(&target.backend_node_id) {
            return existing.clone();
        }
        self.next += 1;
        let name = format!("e{}", self.next);
        self.by_node.insert(target.backend_node_id, name.clone());
        self.by_ref.insert(name.clone(), target);
        name
    }

    /// The element a ref was issued for, if it was issued for the current main document.
    pub fn resolve(&self, loader: &str, name: &str) -> Result<RefTarget, String> {
        match self.by_ref.get(name) {
            Some(target) if self.loader == loader => Ok(target.clone()),
            Some(_) => Err(format!("ref {name} belongs to a page that has since navigated")),
            None if self.was_issued(name) => Err(format!("ref {name} belongs to a page that has since navigated")),
            None => Err(format!("ref {name} was never issued in this session")),
        }
    }

    fn was_issued(&self, name: &str) -> bool {
        name.strip_prefix('e').and_then(|n| n.parse::<u64>().ok()).is_some_and(|n| n >= 1 && n <= self.next)
    }
}

/// True for `e` followed by digits.
pub fn is_ref(name: &str) -> bool {
    name.strip_prefix('e').is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}
#[cfg(test)]
mod tests {
    use super::*;

    fn at(backend: i64) -> RefTarget {
        RefTarget { frame_id: "F".into(), backend_node_id: backend }
    }

    #[test]
    fn an_element_keeps_its_ref_across_snapshots() {
        let mut table = RefTable::default();
        let a = table.issue("L1", at(10));
        let b = table.issue("L1", at(11));
        assert_eq!((a.as_str(), b.as_str()), ("e1", "e2"));
        assert_eq!(table.issue("L1", at(10)), "e1");
        assert_eq!(table.resolve("L1", "e2"), Ok(at(11)));
    }

    #[test]
    fn refs_of_an_earlier_document_are_stale_and_numbers_are_not_reused() {
        let mut table = RefTable::default();
        table.issue("L1", at(10));
        assert!(table.resolve("L2", "e1").unwrap_err().contains("navigated"));
        assert_eq!(table.issue("L2", at(10)), "e2", "a new document gets new numbers");
        assert!(table.resolve("L2", "e1").unwrap_err().contains("navigated"));
        assert!(table.resolve("L2", "e9").unwrap_err().contains("never issued"));
    }

    #[test]
    fn ref_names_are_e_and_digits() {
        assert!(is_ref("e5"));
        assert!(is_ref("e123"));
        assert!(!is_ref("e"));
        assert!(!is_ref("5"));
        assert!(!is_ref("e5x"));
    }
}
