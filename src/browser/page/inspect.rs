//! `page.inspect`: why an element is as it is, in one answer.
//!
//! The page script (`js/inspect.js`) reports what it is, whether it is visible and enabled and why
//! not, its value (never a password's) and its form's validity; Chromium's accessibility tree
//! gives its role and accessible name; `DOMDebugger.getEventListeners` on the element, its
//! ancestors, the document and the window gives every listener its events can reach, each with
//! its script location and first lines. Script ids are turned into URLs by turning the Debugger
//! domain on for a moment (it replays every script's `scriptParsed`), only when a listener's
//! script is not known yet.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::time::Instant;

use super::handle::Page;
use super::reach::Aimed;
use super::target::Target;
use super::watch::dom::REACH_MARK;
use crate::browser::chromium::protocol::accessibility::{AxValue, GetPartialAxTree};
use crate::browser::chromium::protocol::dom::{EventListener, GetEventListeners, ResolveNode};
use crate::browser::chromium::protocol::runtime::{CallFunctionOn, ReleaseObjectGroup};
use crate::browser::error::BrowserError;
use crate::browser::pointer::{PointerTarget, Rect};

const INSPECT_JS: &str = include_str!("../../js/inspect.js");
const ANCESTORS_JS: &str = include_str!("../../js/ancestors.js");
const DESCRIBE_CHAIN_JS: &str = include_str!("../../js/describe_chain.js");

/// The object group inspection handles live in, released at the end.
const GROUP: &str = "text-browser-inspect";
/// Listeners listed before "N more".
const MAX_LISTENERS: usize = 12;
/// Source lines shown under each listener: the whole handler when it is this short, else its
/// first lines.
const LISTENER_LINES: u32 = 8;

/// The element's validity as a form control.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Validity {
    pub valid: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation_message: Option<String>,
    /// The failing constraints: valueMissing, typeMismatch, patternMismatch, tooShort …
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failing: Vec<String>,
}

/// The form the element belongs to, and what keeps it from submitting.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FormFacts {
    pub element: String,
    pub no_validate: bool,
    pub valid: bool,
    /// Up to 5 fields that fail validation, each with its message and constraint.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invalid_fields: Vec<String>,
}

/// One event listener the element's events reach.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Listener {
    /// The element itself, or the ancestor (or document, window) it is on.
    pub on: String,
    /// The event type.
    #[serde(rename = "type")]
    pub event: String,
    /// Registered for the capture phase.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub capture: bool,
    /// Where the handler is: `url:line:column`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// The handler's first lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The same handler as the listener of this type listed above (its source is shown there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_handler_as: Option<String>,
}

/// Everything `page.inspect` reports about an element.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Inspection {
    /// tag#id.class "text".
    pub element: String,
    pub tag: String,
    /// How many elements matched, when more than one (the first is inspected).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<u64>,
    /// The role and accessible name, as Chromium computes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Attributes that explain behaviour (id, class, type, name, disabled, aria-*, data-test*).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<serde_json::Map<String, Value>>,
    /// The current value (masked for password fields; an array for multiple selects).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<bool>,
    /// A select's options (value, and label when different).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    pub visible: bool,
    /// display:none on which ancestor, visibility, opacity, zero size, off-screen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden_because: Option<String>,
    /// Invisible yet it takes the pointer: clicks over `pointerArea` go to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catches_pointer: Option<bool>,
    /// Where it catches the pointer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer_area: Option<Rect>,
    /// What a click at its centre would hit instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered_by: Option<PointerTarget>,
    /// False when it is outside the viewport (scrolling would show it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_viewport: Option<bool>,
    pub enabled: bool,
    /// Its disabled attribute, a disabled fieldset, aria-disabled, inert, pointer-events:none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled_because: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validity: Option<Validity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<FormFacts>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focused: Option<bool>,
    /// Listeners on the element and on everything its events bubble to, nearest first.
    #[serde(default, skip_deserializing)]
    pub listeners: Vec<Listener>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub more_listeners: Option<u64>,
    /// Its recent changes (state attributes, text, children) as the page made them, oldest first,
    /// each with its time since the document started loading, the script that made it and what
    /// that script was reacting to: `+812 #send: disabled set by check (/app.js:14) ← input on
    /// #email`.
    #[serde(default, skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<String>,
    /// When it replaced an earlier element (its container's children were replaced since the
    /// page loaded): when, by which script, reacting to what.
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub replaced: Option<String>,
    /// Listeners still attached to the element it replaced, now detached from the document: the
    /// page bound them before the re-render, and no event of this element reaches them.
    #[serde(default, skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub detached_listeners: Vec<String>,
    /// How the DOM watcher names it and its ancestors (to find its changes).
    #[serde(default, skip_serializing)]
    #[schemars(skip)]
    watch: Vec<String>,
    /// What it looks like, to find an element it replaced.
    #[serde(default, skip_serializing)]
    #[schemars(skip)]
    looks: Option<Aimed>,
}

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
        let facts = self.call_helper_on(INSPECT_JS, target, &[], deadline).await?;
        let mut inspection: Inspection = serde_json::from_value(facts)
            .map_err(|e| BrowserError::HelperScript(format!("inspect.js answered something unexpected: {e}")))?;
        if let Some(value) = inspection.value.take() {
            let redactor = |s: &str| self.watch().store().redactor.text(s);
            inspection.value = Some(match value {
                Value::String(s) => Value::String(redactor(&s)),
                other => other,
            });
        }
        let backend = self.element_backend_id(target, deadline).await?;
        let ax = self.send(GetPartialAxTree { backend_node_id: backend, fetch_relatives: false }, deadline).await;
        if let Ok(ax) = ax {
            let nodes = &ax.nodes;
            let node = nodes.iter().find(|n| n.backend_dom_node_id == Some(backend)).or(nodes.first());
            if let Some(node) = node {
                let text = |value: &Option<AxValue>| value.as_ref()?.value.as_ref()?.as_str().map(str::to_owned);
                inspection.role = text(&node.role);
                inspection.name = text(&node.name).filter(|n| !n.is_empty());
            }
        }
        let raw = self.raw_listeners(backend, deadline).await;
        let _ = self.send(ReleaseObjectGroup { object_group: GROUP }, deadline).await;
        let raw = raw?;
        let more = raw.len().saturating_sub(MAX_LISTENERS);
        inspection.listeners = self.name_listeners(raw.into_iter().take(MAX_LISTENERS).collect(), deadline).await;
        inspection.more_listeners = (more > 0).then_some(more as u64);
        let history = self.history(&inspection.watch, inspection.looks.as_ref(), deadline).await;
        (inspection.changes, inspection.replaced, inspection.detached_listeners) =
            (history.changes, history.replacement.replaced, history.replacement.detached_listeners);
        Ok(inspection)
    }

    /// Every listener on the element, its ancestors, the document and the window, nearest first.
    async fn raw_listeners(&self, backend: i64, deadline: Instant) -> Result<Vec<RawListener>, BrowserError> {
        // Names come from our helper library, in its isolated world; listeners are only visible
        // through objects of the world that registered them: the page's own.
        let context = self.helper_context(deadline).await?;
        let in_helper =
            ResolveNode { backend_node_id: backend, execution_context_id: Some(context), object_group: Some(GROUP) };
        let helper_node = self.send(in_helper, deadline).await?.object.object_id.unwrap_or_default();
        let in_page = ResolveNode { backend_node_id: backend, object_group: Some(GROUP), ..ResolveNode::default() };
        let page_node = self.send(in_page, deadline).await?.object.object_id.unwrap_or_default();
        let names = self.send(call_on(DESCRIBE_CHAIN_JS, &helper_node, true), deadline).await?.result.value;
        let names: Vec<String> = names
            .as_ref()
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|n| n.as_str().unwrap_or("?").to_owned()).collect())
            .unwrap_or_default();
        let chain = self.send(call_on(ANCESTORS_JS, &page_node, false), deadline).await?;
        let chain_id = chain.result.object_id.unwrap_or_default();
        let objects = self.array_objects(&chain_id, deadline).await?;
        let mut out = Vec::new();
        for (index, object) in objects {
            let on = if index == 0 { "itself".to_owned() } else { names.get(index).cloned().unwrap_or_default() };
            let asked = GetEventListeners { object_id: &object, ..GetEventListeners::default() };
            let Ok(found) = self.send(asked, deadline).await else {
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
                    script_id: l.script_id,
                });
            }
        }
        Ok(out)
    }

    /// Names each listener's script (turning the Debugger domain on for a moment when a script is
    /// not known yet) and adds its first lines.
    async fn name_listeners(&self, raw: Vec<RawListener>, deadline: Instant) -> Vec<Listener> {
        self.know_scripts(raw.iter().map(|l| l.script_id.as_str()), deadline).await;
        let mut out = Vec::new();
        let mut shown: std::collections::HashMap<(String, u32, u32), String> = std::collections::HashMap::new();
        for l in raw {
            let url = self.watch().store().script_url(&l.script_id).map(str::to_owned);
            // The handler's own text says how long it is; a handler listed twice is shown once.
            let length =
                l.handler.as_deref().map_or(LISTENER_LINES, |h| h.lines().count() as u32).clamp(1, LISTENER_LINES);
            let key = (l.script_id.clone(), l.line, l.column);
            let same_handler_as = shown.get(&key).cloned();
            let first_time = same_handler_as.is_none();
            shown.entry(key).or_insert_with(|| l.event.clone());
            let mut source = None;
            if let Some(url) = &url
                && first_time
                && let Some(lines) = self.source_lines(url, deadline).await
            {
                source = super::watch::sources::numbered(&lines, l.line, length);
            }
            let source = source.or_else(|| {
                let handler = l.handler.as_deref().filter(|_| first_time)?;
                Some(handler.lines().take(length as usize).collect::<Vec<_>>().join("\n"))
            });
            out.push(Listener {
                on: l.on,
                event: l.event,
                capture: l.capture,
                at: url.map(|u| format!("{u}:{}:{}", l.line, l.column)),
                source,
                same_handler_as,
            });
        }
        out
    }
}
