//! What `page.inspect` lists of one element's history: its recent changes in the current document
//! (state attributes, text, children), each as it was made — with its own time, the script that
//! made it and what that script was reacting to (`+812 #send: disabled set by check (/app.js:14) ←
//! input on #email`). Captured while the page ran (the DOM watcher and its cause stacks), never
//! replayed.

use super::super::records::Record;
use super::super::store::Store;
use super::dom_cause;
use super::places::Places;

/// Changes listed, the latest ones.
pub const MAX_CHANGES: usize = 8;

/// The latest changes of the element the DOM watcher names `name`, oldest first.
pub fn element_changes(store: &Store, name: &str, places: &Places) -> Vec<String> {
    let document = store.timeline.generation();
    let origin = store.timeline.current_origin();
    let mut lines: Vec<String> = store
        .timeline
        .iter()
        .rev()
        .take_while(|e| e.at >= origin)
        .filter_map(|e| match &e.record {
            Record::Dom(dom) if dom.document == document && dom.change.element == name => Some(dom),
            _ => None,
        })
        .flat_map(|dom| {
            dom.recent.iter().rev().map(move |change| {
                let at = (change.at - origin).round() as i64;
                format!("+{at} {}{}", change.line(), dom_cause(store, dom.document, change, change.at, places))
            })
        })
        .take(MAX_CHANGES)
        .collect();
    lines.reverse();
    lines.into_iter().map(|line| store.redactor.text(&line)).collect()
}
