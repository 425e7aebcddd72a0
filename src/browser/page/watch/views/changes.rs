//! What `page.inspect` lists of one element's history: its recent changes in the current document
//! (state attributes, text, children), each as it was made — with its own time, the script that
//! made it and what that script was reacting to (`+812 #send: disabled set by check (/app.js:14) ←
//! input on #email`). Captured while the page ran (the DOM watcher and its cause stacks), never
//! replayed.

use super::super::dom::DomChange;
use super::super::records::Record;
use super::super::store::Store;
use super::dom_cause;
use super::places::Places;
use super::reactions::{self, Among};

/// Changes listed, the latest ones.
pub const MAX_CHANGES: usize = 8;

/// The changes the DOM watcher recorded for the element it names `name` in the current document,
/// latest first.
fn changes_of<'a>(store: &'a Store, name: &'a str) -> impl Iterator<Item = &'a DomChange> {
    let document = store.timeline.generation();
    let origin = store.timeline.current_origin();
    store
        .timeline
        .iter()
        .rev()
        .take_while(move |e| e.at >= origin)
        .filter_map(move |e| match &e.record {
            Record::Dom(dom) if dom.document == document && dom.change.element == name => Some(dom),
            _ => None,
        })
        .flat_map(|dom| dom.recent.iter().rev())
}

/// The latest changes of the element the DOM watcher names `name`, oldest first.
pub fn element_changes(store: &Store, name: &str, places: &Places) -> Vec<String> {
    let document = store.timeline.generation();
    let origin = store.timeline.current_origin();
    let mut lines: Vec<String> = changes_of(store, name)
        .map(|change| {
            let at = (change.at - origin).round() as i64;
            let cause = dom_cause(store, document, change, change.at, places, Among::Any);
            format!("+{at} {}{cause}", change.line())
        })
        .take(MAX_CHANGES)
        .collect();
    lines.reverse();
    lines.into_iter().map(|line| store.redactor.text(&line)).collect()
}

/// Since when the element the DOM watcher names `name` has had its state attribute `attr`, and
/// what kept it so: `since the markup; updateForm (/signup:61) ran on input on #email at +1532 and
/// left it disabled` (`word`: how the state reads, `disabled`). Set by a script, it says when and
/// by whom: `set at +812 by validate (/app.js:3) ← input on #email`.
pub fn state_since(store: &Store, name: &str, (attr, word): (&str, &str), places: &Places) -> String {
    let document = store.timeline.generation();
    let origin = store.timeline.current_origin();
    let at = |t: f64| (t - origin).round() as i64;
    let set =
        changes_of(store, name).find(|change| change.attrs.iter().any(|(n, _, after)| n == attr && after.is_some()));
    let mut line = match set {
        Some(change) => {
            format!("set at +{}{}", at(change.at), dom_cause(store, document, change, change.at, places, Among::Any))
        }
        None => "since the markup".to_owned(),
    };
    let kept: Vec<_> = store.kept.of(document, name, attr).filter(|k| set.is_none_or(|s| k.at >= s.at)).collect();
    if let Some(last) = kept.last() {
        let who = store.causes.first_of(document, &last.causes).and_then(|stack| reactions::by(stack, places, false));
        let who = who.unwrap_or("a script".into());
        let on = last.input.as_deref().map(|i| format!(" on {i}")).unwrap_or_default();
        line.push_str(&format!("; {who} ran{on} at +{} and left it {word}", at(last.at)));
        if kept.len() > 1 {
            line.push_str(&format!(" ({} times, first at +{})", kept.len(), at(kept[0].at)));
        }
    }
    store.redactor.text(&line)
}
