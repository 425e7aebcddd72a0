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
use serde_json::{Value, json};
use tokio::time::Instant;

use super::handle::Page;
use super::reach::Aimed;
use super::target::Target;
use super::watch::dom::REACH_MARK;
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
        let ax = self
            .cdp(
                "Accessibility.getPartialAXTree",
                json!({ "backendNodeId": backend, "fetchRelatives": false }),
                deadline,
            )
            .await;
        if let Ok(ax) = ax {
            let node = ax["nodes"].as_array().and_then(|nodes| {
                nodes.iter().find(|n| n["backendDOMNodeId"].as_i64() == Some(backend)).or(nodes.first())
            });
            if let Some(node) = node {
                inspection.role = node.pointer("/role/value").and_then(Value::as_str).map(str::to_owned);
                inspection.name =
                    node.pointer("/name/value").and_then(Value::as_str).filter(|n| !n.is_empty()).map(str::to_owned);
            }
        }
        let raw = self.raw_listeners(backend, deadline).await;
        let _ = self.cdp("Runtime.releaseObjectGroup", json!({ "objectGroup": GROUP }), deadline).await;
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
        let in_helper = json!({ "backendNodeId": backend, "executionContextId": context, "objectGroup": GROUP });
        let helper_node = self.cdp("DOM.resolveNode", in_helper, deadline).await?;
        let in_page = json!({ "backendNodeId": backend, "objectGroup": GROUP });
        let page_node = self.cdp("DOM.resolveNode", in_page, deadline).await?;
        let object =
            |node: &Value| node.pointer("/object/objectId").and_then(Value::as_str).unwrap_or_default().to_owned();
        let call = |function: &'static str, on: String, by_value: bool| json!({ "functionDeclaration": function, "objectId": on, "returnByValue": by_value, "objectGroup": GROUP });
        let names =
            self.cdp("Runtime.callFunctionOn", call(DESCRIBE_CHAIN_JS, object(&helper_node), true), deadline).await?;
        let names: Vec<String> = names
            .pointer("/result/value")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|n| n.as_str().unwrap_or("?").to_owned()).collect())
            .unwrap_or_default();
        let chain = self.cdp("Runtime.callFunctionOn", call(ANCESTORS_JS, object(&page_node), false), deadline).await?;
        let chain_id = chain.pointer("/result/objectId").and_then(Value::as_str).unwrap_or_default();
        let objects = self.array_objects(chain_id, deadline).await?;
        let mut out = Vec::new();
        for (index, object) in objects {
            let on = if index == 0 { "itself".to_owned() } else { names.get(index).cloned().unwrap_or_default() };
            let Ok(found) = self.cdp("DOMDebugger.getEventListeners", json!({ "objectId": object }), deadline).await
            else {
                continue;
            };
            let ours = |l: &Value| {
                l.pointer("/handler/description").and_then(Value::as_str).is_some_and(|h| h.starts_with(REACH_MARK))
            };
            for l in found["listeners"].as_array().into_iter().flatten().filter(|l| !ours(l)) {
                out.push(RawListener {
                    on: on.clone(),
                    event: l["type"].as_str().unwrap_or_default().to_owned(),
                    capture: l["useCapture"].as_bool().unwrap_or(false),
                    script_id: l["scriptId"].as_str().unwrap_or_default().to_owned(),
                    line: l["lineNumber"].as_u64().unwrap_or(0) as u32 + 1,
                    column: l["columnNumber"].as_u64().unwrap_or(0) as u32 + 1,
                    handler: l.pointer("/handler/description").and_then(Value::as_str).map(str::to_owned),
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
