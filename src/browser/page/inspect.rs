//! `page.inspect`: why an element is as it is, in one answer; and `axe.run`, the page's
//! accessibility checked with axe-core.
//!
//! The page script (`js/inspect.js`) reports what it is, whether it is visible and enabled and why
//! not, its value (never a password's) and its form's validity; Chromium's accessibility tree
//! gives its role and accessible name; `DOMDebugger.getEventListeners` on the element, its
//! ancestors, the document and the window gives every listener its events can reach, each with
//! its script location and first lines. Script ids are turned into URLs by turning the Debugger
//! domain on for a moment (it replays every script's `scriptParsed`), only when a listener's
//! script is not known yet. Behind React or Vue, the page's own world lists the components'
//! handlers in their place (as for an action's `effects.reached`); every place is read through
//! the session's source maps. Its history (changes, a replacement) is `act::replaced`'s.
//!
//! axe-core is loaded into the helper world once per document, where page scripts cannot
//! interfere with it.

use serde_json::{Value, json};
use tokio::time::Instant;

use super::act::history;
use super::act::listeners::name_listed;
use super::code::source_lines;
use super::handle::Page;
use super::locate::answers::{AxeViolation, Inspection, Listener};
use super::locate::scripts::{Ancestors, AxeRun, DescribeChain, Inspect, Script};
use super::locate::target::Target;
use super::watch::cdp_events::CodeLocation;
use super::watch::dom::{ListenerSeen, REACH_MARK, ReachNote};
use super::watch::views::places::Places;
use crate::browser::chromium::protocol::accessibility::{AxValue, GetPartialAxTree};
use crate::browser::chromium::protocol::dom::{EventListener, GetEventListeners, ResolveNode};
use crate::browser::chromium::protocol::runtime::{CallFunctionOn, ReleaseObjectGroup};
use crate::browser::error::BrowserError;

/// How `js/inspect.js` says an element is disabled by its own attribute.
const DISABLED_ATTRIBUTE: &str = "its disabled attribute";
/// The object group inspection handles live in, released at the end.
const GROUP: &str = "text-browser-inspect";
/// Listeners listed before "N more".
const MAX_LISTENERS: usize = 12;
/// Source lines shown under each listener: the whole handler when it is this short, else its
/// first lines.
const LISTENER_LINES: u32 = 8;

/// Calls `function` on the object `on`, its result kept in the inspection's group.
fn call_on<'a>(function: &'a str, on: &'a str, by_value: bool) -> CallFunctionOn<'a> {
    CallFunctionOn {
        function_declaration: function,
        object_id: Some(on),
        return_by_value: by_value,
        object_group: Some(GROUP),
        ..CallFunctionOn::default()
    }
}

/// A listener as DOMDebugger reports it, before its script is named.
struct RawListener {
    on: String,
    event: String,
    capture: bool,
    script_id: String,
    line: u32,
    column: u32,
    handler: Option<String>,
}

impl Page {
    pub async fn inspect(&self, target: &Target, deadline: Instant) -> Result<Inspection, BrowserError> {
        inspect(self, target, deadline).await
    }

    /// Runs axe-core (`axe_source` is axe.min.js) and returns its violations; axe-core is loaded
    /// into the helper world once per document.
    pub async fn axe(
        &self,
        axe_source: &str,
        include: Option<&str>,
        deadline: Instant,
    ) -> Result<Vec<AxeViolation>, BrowserError> {
        match self.locate().call(AxeRun, &[json!(include)], deadline).await {
            Err(BrowserError::AxeUnavailable(_)) => {
                self.locate().load_into_world(axe_source, deadline).await?;
                self.locate().call(AxeRun, &[json!(include)], deadline).await
            }
            other => other,
        }
    }
}

/// The listeners found: as DOMDebugger lists them, and as the page's own world lists them (with
/// React's and Vue's handlers in place of their own listeners).
struct Found {
    raw: Vec<RawListener>,
    listed: Option<ReachNote>,
}

/// Every listener on the element, its ancestors, the document and the window, nearest first.
async fn raw_listeners(page: &Page, backend: i64, deadline: Instant) -> Result<Found, BrowserError> {
    // Names come from our helper library, in its isolated world; listeners are only visible
    // through objects of the world that registered them: the page's own.
    let context = page.locate().context(deadline).await?;
    let in_helper =
        ResolveNode { backend_node_id: backend, execution_context_id: Some(context), object_group: Some(GROUP) };
    let helper_node = page.send(in_helper, deadline).await?.object.object_id.unwrap_or_default();
    let in_page = ResolveNode { backend_node_id: backend, object_group: Some(GROUP), ..ResolveNode::default() };
    let page_node = page.send(in_page, deadline).await?.object.object_id.unwrap_or_default();
    let listed = page.locate().listing().listed_at(&page_node, deadline).await;
    let names = page.send(call_on(DescribeChain::SOURCE, &helper_node, true), deadline).await?.result.value;
    let names: Vec<String> = names
        .as_ref()
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|n| n.as_str().unwrap_or("?").to_owned()).collect())
        .unwrap_or_default();
    let chain = page.send(call_on(Ancestors::SOURCE, &page_node, false), deadline).await?;
    let chain_id = chain.result.object_id.unwrap_or_default();
    let objects = page.locate().array_objects(&chain_id, deadline).await?;
    let mut out = Vec::new();
    for (index, object) in objects {
        let on = if index == 0 { "itself".to_owned() } else { names.get(index).cloned().unwrap_or_default() };
        let asked = GetEventListeners { object_id: &object, ..GetEventListeners::default() };
        let Ok(found) = page.send(asked, deadline).await else {
            continue;
        };
        let ours = |l: &EventListener| l.handler_source().is_some_and(|h| h.starts_with(REACH_MARK));
        for l in found.listeners.into_iter().filter(|l| !ours(l)) {
            out.push(RawListener {
                on: on.clone(),
                capture: l.use_capture,
                line: l.line_number + 1,
                column: l.column_number + 1,
                handler: l.handler_source().map(str::to_owned),
                event: l.event,
                script_id: l.script_id.into(),
            });
        }
    }
    Ok(Found { raw: out, listed })
}

/// The listeners as page.inspect gives them, at most [`MAX_LISTENERS`], and how many more there
/// are. Behind React or Vue, the components' handlers first (`onClick = submit in <ClaimForm>`,
/// React's delegation on its root in one entry), the frameworks' own listeners left out; each
/// place read through the session's source maps (`src/components/ClaimForm.tsx:16:3` and its
/// original lines), else as served.
async fn name_listeners(page: &Page, found: Found, deadline: Instant) -> (Vec<Listener>, usize) {
    let (target, listed) = found.listed.map(|note| (note.target.map(|t| t.name), note.listeners)).unwrap_or_default();
    let framework: Vec<ListenerSeen> = listed.into_iter().filter(|l| l.framework.is_some()).collect();
    let mut out = match framework.is_empty() {
        true => Vec::new(),
        false => framework_listeners(page, &framework, target.as_deref(), deadline).await,
    };
    let raw = found.raw;
    page.locate().listing().know_scripts(raw.iter().map(|l| l.script_id.as_str()), deadline).await;
    let located: Vec<(RawListener, Option<CodeLocation>)> = {
        let store = page.watch().store();
        raw.into_iter()
            .map(|l| {
                let url = store.script_url(&l.script_id).map(str::to_owned);
                let at = url.map(|url| CodeLocation { url, line: l.line, column: l.column, function: String::new() });
                (l, at)
            })
            .collect()
    };
    let scripts: Vec<String> = located.iter().filter_map(|(_, at)| Some(at.as_ref()?.url.clone())).collect();
    let places = Places { maps: page.maps_for(&scripts, deadline).await, ..Places::default() };
    // The frameworks' own listeners (React's root, Vue's invokers) stand behind the handlers above.
    let library = |at: &Option<CodeLocation>| at.as_ref().is_some_and(|at| places.resolve(at).library);
    let located: Vec<_> = located.into_iter().filter(|(_, at)| framework.is_empty() || !library(at)).collect();
    let more = (out.len() + located.len()).saturating_sub(MAX_LISTENERS);
    let mut shown: std::collections::HashMap<(String, u32, u32), String> = std::collections::HashMap::new();
    for (l, at) in located.into_iter().take(MAX_LISTENERS.saturating_sub(out.len())) {
        // The handler's own text says how long it is; a handler listed twice is shown once.
        let length = l.handler.as_deref().map_or(LISTENER_LINES, |h| h.lines().count() as u32).clamp(1, LISTENER_LINES);
        let key = (l.script_id.clone(), l.line, l.column);
        let same_handler_as = shown.get(&key).cloned();
        let first_time = same_handler_as.is_none();
        shown.entry(key).or_insert_with(|| l.event.clone());
        let original = at.as_ref().and_then(|at| places.original_from(at, length));
        let mut source = original.as_ref().and_then(|(_, lines)| lines.clone()).filter(|_| first_time);
        if source.is_none()
            && let Some(at) = &at
            && first_time
            && let Some(lines) = source_lines(page, &at.url, deadline).await
        {
            source = super::watch::sources::numbered(&lines, l.line, length);
        }
        let source = source.or_else(|| {
            let handler = l.handler.as_deref().filter(|_| first_time)?;
            Some(handler.lines().take(length as usize).collect::<Vec<_>>().join("\n"))
        });
        let served = at.map(|at| format!("{}:{}:{}", at.url, at.line, at.column));
        out.push(Listener {
            on: l.on,
            event: l.event,
            capture: l.capture,
            at: original.map(|(spot, _)| spot).or(served),
            handler: None,
            source,
            same_handler_as,
        });
    }
    (out, more)
}

/// The components' handlers React and Vue call for the events of the element (named `target` by
/// the page's world), named as effects.reached names them, with their original lines.
async fn framework_listeners(
    page: &Page,
    listed: &[ListenerSeen],
    target: Option<&str>,
    deadline: Instant,
) -> Vec<Listener> {
    let (named, places) = name_listed(page, listed, &page.loader_id(), deadline).await;
    // Nearest first: the element's own entries lead, until one on an ancestor.
    let mut on_element = true;
    let mut out = Vec::new();
    for (named, at) in named {
        on_element &= target == Some(named.on.as_str());
        let original = at.as_ref().and_then(|at| places.original_from(at, LISTENER_LINES));
        let served = at.map(|at| format!("{}:{}:{}", at.url, at.line, at.column));
        out.push(Listener {
            on: if on_element { "itself".to_owned() } else { named.on.clone() },
            event: named.event.clone(),
            capture: named.capture,
            handler: Some(named.who()),
            source: original.as_ref().and_then(|(_, lines)| lines.clone()),
            at: original.map(|(spot, _)| spot).or(served).filter(|_| named.delegation == 0),
            same_handler_as: None,
        });
    }
    out
}

/// [`Page::inspect`].
async fn inspect(page: &Page, target: &Target, deadline: Instant) -> Result<Inspection, BrowserError> {
    let mut inspection = page.locate().call_on(Inspect, target, &[], deadline).await?;
    if let Some(value) = inspection.value.take() {
        let redactor = |s: &str| page.watch().store().redactor.text(s);
        inspection.value = Some(match value {
            Value::String(s) => Value::String(redactor(&s)),
            other => other,
        });
    }
    let backend = page.locate().backend_id(target, deadline).await?;
    let ax = page.send(GetPartialAxTree { backend_node_id: backend, fetch_relatives: false }, deadline).await;
    if let Ok(ax) = ax {
        let nodes = &ax.nodes;
        let node = nodes.iter().find(|n| n.backend_dom_node_id == Some(backend)).or(nodes.first());
        if let Some(node) = node {
            let text = |value: &Option<AxValue>| value.as_ref()?.value.as_ref()?.as_str().map(str::to_owned);
            inspection.role = text(&node.role);
            inspection.name = text(&node.name).filter(|n| !n.is_empty());
        }
    }
    let found = raw_listeners(page, backend, deadline).await;
    let _ = page.send(ReleaseObjectGroup { object_group: GROUP }, deadline).await;
    let more;
    (inspection.listeners, more) = name_listeners(page, found?, deadline).await;
    inspection.more_listeners = (more > 0).then_some(more as u64);
    let history = history(page, &inspection.watch, inspection.looks.as_ref(), deadline).await;
    (inspection.changes, inspection.replaced, inspection.detached_listeners) =
        (history.changes, history.replacement.replaced, history.replacement.detached_listeners);
    // A disabled attribute: since when, and what kept it so.
    if let Some(because) = inspection.disabled_because.as_mut()
        && because == DISABLED_ATTRIBUTE
        && !inspection.watch.is_empty()
    {
        *because = format!("{DISABLED_ATTRIBUTE}, {}", history.disabled_since);
    }
    Ok(inspection)
}
