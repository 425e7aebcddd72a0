//! An element's history — its recent changes, whether it was replaced since the page loaded, by
//! what, and which listeners are left on the element it replaced — what `page.inspect` says of an
//! element, and why an action reached no listener ("Sign in does nothing": the listeners were bound to a node a later render threw
//! away).
//!
//! The replacement comes from the timeline: the latest change that replaced children of the
//! element's container, with who made it and what it reacted to (see `watch::causes`). The
//! predecessor comes from Chromium: `DOM.getDetachedDomNodes` lists the nodes out of the document
//! that something still holds; one that looks like the element (same tag and id, or same tag,
//! class and text) is its predecessor, and `DOMDebugger.getEventListeners` on it (resolved in the
//! page's own world, the only one its listeners show in) lists what it still carries.

use tokio::time::Instant;

use super::listeners::{Ahead, Aimed};
use crate::browser::chromium::protocol::dom::{GetDetachedDomNodes, GetEventListeners, Node, ResolveNode};
use crate::browser::chromium::protocol::runtime::ReleaseObjectGroup;
use crate::browser::page::handle::{Page, busy_of};
use crate::browser::page::settled::wait_for_fetches;
use crate::browser::page::watch::cdp_events::CodeLocation;
use crate::browser::page::watch::records::Record;
use crate::browser::page::watch::views::changes::{element_changes, state_since};
use crate::browser::page::watch::views::dom_cause;
use crate::browser::page::watch::views::places::Places;
use crate::browser::page::watch::views::reactions::Among;

/// The object group predecessors are resolved in, released at the end.
const GROUP: &str = "text-browser-replaced";
/// Predecessors looked at, at most.
const MAX_PREDECESSORS: usize = 3;
/// Listener lines listed per predecessor.
const MAX_LISTENERS: usize = 6;

/// What replaced an element, and what its predecessor still holds.
#[derive(Debug, Clone, Default)]
pub struct Replacement {
    /// `at +294 ms (#signin-box: 1 child replaced) by renderForm (/signin/:60) ← response of GET
    /// /api/config 200`.
    pub replaced: Option<String>,
    /// `click → onSignIn (/signin/app.js:12)` for each listener left on a detached predecessor.
    pub detached_listeners: Vec<String>,
}

/// What `page.inspect` says of an element's past.
#[derive(Debug, Clone, Default)]
pub struct History {
    /// Its recent changes, oldest first (see `watch::views::changes`).
    pub changes: Vec<String>,
    /// Since when it has been disabled and what kept it so (`changes::state_since`): what
    /// `page.inspect` adds to "its disabled attribute".
    pub disabled_since: String,
    pub replacement: Replacement,
}

/// The history of the element the DOM watcher names `watch` (itself first, then its ancestors)
/// that looks like `looks`: what the watcher still holds is asked for first, and the stacks of its
/// causes are awaited (briefly), so a change just made is listed with its maker.
pub async fn history(page: &Page, watch: &[String], looks: Option<&Aimed>, deadline: Instant) -> History {
    let Some(name) = watch.first() else { return History::default() };
    busy_of(page.look(None, deadline).await);
    page.settle_events(deadline).await;
    wait_for_fetches(page, deadline, |s| !s.causes.pending_since(0.0)).await;
    let places = page.places_since(0, deadline).await;
    let (changes, disabled_since) = {
        let store = page.watch().store();
        (element_changes(&store, name, &places), state_since(&store, name, ("disabled", "disabled"), &places))
    };
    let replacement = match looks {
        Some(looks) => replacement(page, looks, watch, (None, &places), deadline).await,
        None => Replacement::default(),
    };
    History { changes, disabled_since, replacement }
}

/// Whether the element `aimed` (named `watch`, itself first then its ancestors, by the DOM
/// watcher) was replaced, and the listeners of `events` (all when None) on its predecessors.
async fn replacement(
    page: &Page,
    aimed: &Aimed,
    watch: &[String],
    (events, places): (Option<&[&str]>, &Places),
    deadline: Instant,
) -> Replacement {
    let replaced = replaced_when(page, watch, places);
    let detached_listeners = predecessor_listeners(page, aimed, (events, places), deadline).await;
    Replacement { replaced, detached_listeners }
}

/// Why an action reached no listener, in one sentence or two.
pub(super) async fn why_no_listener(page: &Page, ahead: &Ahead, watch: &[String], deadline: Instant) -> String {
    let events = ahead.input.events();
    let listed = match events {
        [one] => (*one).to_owned(),
        [first @ .., last] => format!("{} or {last}", first.join(", ")),
        [] => String::new(),
    };
    let Some(aimed) = &ahead.target else {
        return format!("nothing was under the pointer: no {listed} listener ran");
    };
    let mut why = format!("no {listed} listener on {}, its ancestors, the document or the window", aimed.name);
    let places = page.places_since(0, deadline).await;
    let found = replacement(page, aimed, watch, (Some(events), &places), deadline).await;
    if let Some(replaced) = &found.replaced {
        why.push_str(&format!("; it was replaced {replaced}"));
    }
    if !found.detached_listeners.is_empty() {
        why.push_str(&format!(
            "; the {} it replaced, now detached from the document, still has {}",
            aimed.tag,
            found.detached_listeners.join(", ")
        ));
    }
    why
}

/// The latest change of the current document that replaced children of the element's
/// container (or the element itself), as `at +294 ms (…) by … ← …`.
fn replaced_when(page: &Page, watch: &[String], places: &Places) -> Option<String> {
    let store = page.watch().store();
    let document = store.timeline.generation();
    let origin = store.timeline.current_origin();
    let entry = store.timeline.iter().rev().take_while(|e| e.at >= origin).find(|e| match &e.record {
        Record::Dom(dom) => {
            dom.document == document
                && dom.change.removed > 0
                && dom.change.added > 0
                && watch.iter().skip(1).any(|name| *name == dom.change.element)
        }
        _ => false,
    })?;
    let Record::Dom(dom) = &entry.record else { return None };
    let change = dom.recent.iter().rev().find(|c| c.removed > 0 && c.added > 0).unwrap_or(&dom.change);
    let cause = dom_cause(&store, dom.document, change, change.at, places, Among::Any);
    Some(format!("at +{} ms ({}){cause}", (change.at - origin).round() as i64, change.line()))
}

/// The listeners (of `events`) on detached nodes that look like `aimed`.
async fn predecessor_listeners(
    page: &Page,
    aimed: &Aimed,
    (events, places): (Option<&[&str]>, &Places),
    deadline: Instant,
) -> Vec<String> {
    let Ok(detached) = page.send(GetDetachedDomNodes {}, deadline).await else { return Vec::new() };
    let candidates: Vec<i64> = detached
        .detached_nodes
        .iter()
        .filter_map(|d| d.tree_node.as_ref())
        .filter(|node| looks_like(node, aimed))
        .filter_map(|node| node.backend_node_id)
        .take(MAX_PREDECESSORS)
        .collect();
    let mut lines = Vec::new();
    for backend in candidates {
        let resolve = ResolveNode { backend_node_id: backend, object_group: Some(GROUP), ..ResolveNode::default() };
        let Some(object) = page.send(resolve, deadline).await.ok().and_then(|r| r.object.object_id) else {
            continue;
        };
        let asked = GetEventListeners { object_id: &object, ..GetEventListeners::default() };
        let Ok(found) = page.send(asked, deadline).await else {
            continue;
        };
        let listeners = found.listeners;
        page.locate().listing().know_scripts(listeners.iter().map(|l| l.script_id.as_str()), deadline).await;
        let store = page.watch().store();
        for l in &listeners {
            let event = l.event.as_str();
            if events.is_some_and(|wanted| !wanted.contains(&event)) || lines.len() == MAX_LISTENERS {
                continue;
            }
            let function = l.handler_source().map(function_name);
            let at = store.script_url(l.script_id.as_str()).map(|url| CodeLocation {
                url: url.to_owned(),
                line: l.line_number + 1,
                column: l.column_number + 1,
                function: function.clone().unwrap_or_default(),
            });
            let handler = match at {
                Some(at) => places.place(&at),
                None => function.unwrap_or_else(|| "a listener".into()),
            };
            lines.push(format!("{event} → {handler}"));
        }
    }
    page.send_detached(ReleaseObjectGroup { object_group: GROUP });
    lines
}

/// Whether a detached node (a `DOM.Node` with its children) looks like the element: the same tag
/// and id, or, without an id, the same tag, class and text.
fn looks_like(node: &Node, aimed: &Aimed) -> bool {
    if node.local_name != aimed.tag {
        return false;
    }
    if !aimed.id.is_empty() {
        return node.attribute("id") == Some(aimed.id.as_str());
    }
    let text: String = node.children.iter().filter_map(|c| c.node_value.as_deref()).collect::<Vec<_>>().join(" ");
    node.attribute("class").unwrap_or_default() == aimed.cls
        && text.split_whitespace().collect::<Vec<_>>().join(" ") == aimed.text
}

/// `onSignIn` from a handler's source (`function onSignIn(e) { … }`, `async function x()`), or
/// `a listener` for arrows and anonymous functions.
fn function_name(source: &str) -> String {
    let head = source.trim_start().trim_start_matches("async ").trim_start();
    head.strip_prefix("function")
        .map(|rest| rest.trim_start_matches('*').trim_start())
        .and_then(|rest| rest.split(|c: char| c == '(' || c.is_whitespace()).next())
        .filter(|name| !name.is_empty())
        .unwrap_or("a listener")
        .to_owned()
}
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn aimed(id: &str, cls: &str, text: &str) -> Aimed {
        Aimed { tag: "button".into(), id: id.into(), cls: cls.into(), text: text.into(), name: String::new() }
    }

    #[test]
    fn a_detached_node_is_a_predecessor_when_tag_and_id_or_class_and_text_agree() {
        let node: Node =
            serde_json::from_value(json!({"localName":"button","attributes":["id","sign-in","type","button"],
                          "children":[{"nodeValue":"Sign  in"}]}))
            .unwrap();
        assert!(looks_like(&node, &aimed("sign-in", "", "")));
        assert!(!looks_like(&node, &aimed("sign-up", "", "")));
        let plain: Node = serde_json::from_value(
            json!({"localName":"button","attributes":["class","primary"],"children":[{"nodeValue":"Sign  in"}]}),
        )
        .unwrap();
        assert!(looks_like(&plain, &aimed("", "primary", "Sign in")));
        assert!(!looks_like(&plain, &aimed("", "primary", "Sign up")));
    }

    #[test]
    fn a_handlers_name_comes_from_its_source() {
        assert_eq!(function_name("function onSignIn(e) { go(); }"), "onSignIn");
        assert_eq!(function_name("async function save() {}"), "save");
        assert_eq!(function_name("(e) => go(e)"), "a listener");
        assert_eq!(function_name("function (e) {}"), "a listener");
    }
}
