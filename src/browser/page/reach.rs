//! What an action's events reach: the page's listeners on the element the input goes to, its
//! ancestors, the document and the window, looked up just before the input and named after it.
//!
//! Chosen by cost (measured against a click's ≈ 2 ms of raw input on this machine): the lookup is
//! one `Runtime.callFunctionOn` before the input, into a function made once per document in the
//! page's own world with the DevTools command-line API's `getEventListeners` (`js/listeners_ahead.js`)
//! — ≈ 0.6 ms. Listener breakpoints (`DOMDebugger.setEventListenerBreakpoint`, paused, recorded,
//! resumed) cost ≈ 1.4 ms per listener run, more for our own watcher's listeners, and stall the page
//! on every pause; a `DOMDebugger.getEventListeners` per node of the path ≈ 5 ms. Naming the
//! listeners' scripts (`[[FunctionLocation]]` of the functions the lookup kept) takes three more
//! round trips, run while the action settles, and only for functions not named before in the
//! document (the lookup numbers each function; the locations are kept per document), so a page's
//! second click on the same control pays only the lookup.
//!
//! A lookup before the input sees `once` listeners and listeners on an element the input's
//! handlers then replace; it does not see listeners added during the dispatch, and it lists a
//! listener after one that stopped the event's propagation (the watcher's note says so).

use std::collections::HashMap;

use futures_util::future::join_all;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::handle::Page;
use super::watch::events::CodeLocation;
use super::watch::views::reached::ReachedListener;
use crate::browser::error::BrowserError;

const LISTENERS_AHEAD_JS: &str = include_str!("../../js/listeners_ahead.js");
/// The object group the lookup function lives in (for the document's life).
const LOOKUP_GROUP: &str = "text-browser-reach";
/// The object group of the functions being named, released at once.
const NAMING_GROUP: &str = "text-browser-reach-names";
/// Listeners named at most.
const MAX_NAMED: usize = 12;

/// The events each kind of input dispatches, whose listeners an action reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// A press and release of a mouse button (a form's `submit` may follow).
    Click,
    /// A double click.
    DoubleClick,
    /// The pointer moving onto an element.
    Hover,
    /// Text put into a field (`page.fill`, `page.select`).
    Fill,
    /// Keys (`page.press`, `page.type`); Enter may submit a form, Space click a button.
    Keys,
    /// A checkbox or radio clicked.
    Check,
}

impl Input {
    pub fn events(self) -> &'static [&'static str] {
        match self {
            Self::Click => &["pointerdown", "mousedown", "pointerup", "mouseup", "click", "submit"],
            Self::DoubleClick => &["pointerdown", "mousedown", "pointerup", "mouseup", "click", "dblclick"],
            Self::Hover => &["pointerover", "pointerenter", "mouseover", "mouseenter", "pointermove", "mousemove"],
            Self::Fill => &["beforeinput", "input", "change"],
            Self::Keys => &["keydown", "keypress", "beforeinput", "input", "keyup", "submit"],
            Self::Check => &["pointerdown", "mousedown", "pointerup", "mouseup", "click", "input", "change"],
        }
    }
}

/// The element the input goes to, as the page's own world sees it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Aimed {
    pub tag: String,
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub cls: String,
    #[serde(default)]
    pub text: String,
    /// tag#id.class.
    #[serde(default)]
    pub name: String,
}

/// The lookup function of one document, and the script locations of the functions it named.
#[derive(Debug, Clone, Default)]
pub struct Lister {
    /// The document's loader id.
    loader: String,
    /// The lookup function's object id.
    lookup: String,
    /// Function number → (script id, line, column), None when it has none (a native function).
    named: HashMap<u32, Option<Place>>,
}

/// Where a function is: (script id, 1-based line, 1-based column).
type Place = (String, u32, u32);

/// Function locations kept per document, at most (a page that makes fresh closures on every
/// render is not remembered forever).
const MAX_KEPT: usize = 512;

#[derive(Debug, Clone, Deserialize)]
struct Found {
    on: String,
    #[serde(rename = "type")]
    event: String,
    #[serde(default)]
    capture: bool,
    #[serde(default)]
    name: String,
    #[serde(default)]
    inline: Option<String>,
    #[serde(default)]
    prevents: bool,
    /// The function's number for this document (0: none).
    #[serde(default)]
    fid: u32,
}

#[derive(Debug, Deserialize)]
struct LookupAnswer {
    target: Option<Aimed>,
    #[serde(default)]
    listeners: Vec<Found>,
}

/// What was looked up before an input, to be named after it.
#[derive(Debug, Clone)]
pub struct Ahead {
    pub input: Input,
    /// The element the input went to.
    pub target: Option<Aimed>,
    found: Vec<Found>,
    /// The lookup function holding the listeners' functions.
    lookup: String,
}

impl Ahead {
    pub fn found_none(&self) -> bool {
        self.found.is_empty()
    }
}

impl Page {
    /// The listeners `input`'s events will reach at viewport point `point` (or the focused element,
    /// without one). None when the page could not be asked (a child frame, a document going away).
    pub(super) async fn listeners_ahead(
        &self,
        input: Input,
        point: Option<(f64, f64)>,
        deadline: Instant,
    ) -> Option<Ahead> {
        let (x, y) = match point {
            Some((x, y)) => (json!(x), json!(y)),
            None => (Value::Null, Value::Null),
        };
        for retry in [false, true] {
            let lookup = self.lookup_function(retry, deadline).await.ok()?;
            let params = json!({
                "functionDeclaration": "function (x, y, types) { return this(x, y, types); }",
                "objectId": lookup,
                "arguments": [{ "value": x }, { "value": y }, { "value": input.events() }],
                "returnByValue": true,
            });
            match self.cdp("Runtime.callFunctionOn", params, deadline).await {
                Ok(answer) if answer.get("exceptionDetails").is_none() => {
                    let found: LookupAnswer = serde_json::from_value(answer.pointer("/result/value")?.clone()).ok()?;
                    return Some(Ahead { input, target: found.target, found: found.listeners, lookup });
                }
                // The document changed since the function was made: make it again, once.
                Err(BrowserError::Protocol { .. }) if !retry => continue,
                _ => return None,
            }
        }
        None
    }

    /// The listeners looked up before the input, each with its script location.
    pub(super) async fn name_reached(&self, ahead: &Ahead, deadline: Instant) -> Vec<ReachedListener> {
        let locations = self.function_locations(ahead, deadline).await.unwrap_or_default();
        self.know_scripts(locations.iter().flatten().map(|(script, _, _)| script.as_str()), deadline).await;
        let store = self.watch().store();
        ahead
            .found
            .iter()
            .enumerate()
            .map(|(i, found)| {
                let at = locations.get(i).cloned().flatten().and_then(|(script, line, column)| {
                    let url = store.script_url(&script)?.to_owned();
                    Some(CodeLocation { url, line, column, function: String::new() })
                });
                ReachedListener {
                    event: found.event.clone(),
                    on: found.on.clone(),
                    capture: found.capture,
                    function: found.name.clone(),
                    at: at.filter(|_| found.inline.is_none()),
                    inline: found.inline.as_ref().map(|code| store.redactor.text(code)),
                    prevents: found.prevents,
                }
            })
            .collect()
    }

    /// (script id, line, column) of each listener's function the lookup found, in order: from what
    /// this document's lookup named before, the rest asked for (the first [`MAX_NAMED`]).
    async fn function_locations(&self, ahead: &Ahead, deadline: Instant) -> Result<Vec<Option<Place>>, BrowserError> {
        let mut named: HashMap<u32, Option<Place>> =
            self.lister().as_ref().filter(|l| l.lookup == ahead.lookup).map(|l| l.named.clone()).unwrap_or_default();
        let mut wanted: Vec<u32> = Vec::new();
        for found in ahead.found.iter().take(MAX_NAMED) {
            if found.fid != 0 && !named.contains_key(&found.fid) && !wanted.contains(&found.fid) {
                wanted.push(found.fid);
            }
        }
        if !wanted.is_empty() {
            let located = self.locate(ahead, &wanted, deadline).await?;
            if let Some(lister) = self.lister().as_mut().filter(|l| l.lookup == ahead.lookup) {
                if lister.named.len() + located.len() > MAX_KEPT {
                    lister.named.clear();
                }
                lister.named.extend(located.iter().cloned());
            }
            named.extend(located);
        }
        Ok(ahead.found.iter().map(|found| named.get(&found.fid).cloned().flatten()).collect())
    }

    /// Asks the page where the functions numbered `fids` are.
    async fn locate(
        &self,
        ahead: &Ahead,
        fids: &[u32],
        deadline: Instant,
    ) -> Result<Vec<(u32, Option<Place>)>, BrowserError> {
        let taken = self
            .cdp(
                "Runtime.callFunctionOn",
                json!({ "functionDeclaration": "function (fids) { return this.take(fids); }", "objectId": ahead.lookup,
                        "arguments": [{ "value": fids }], "objectGroup": NAMING_GROUP }),
                deadline,
            )
            .await?;
        let located = async {
            let array = taken.pointer("/result/objectId").and_then(Value::as_str).unwrap_or_default();
            let functions = self.array_objects(array, deadline).await?;
            let asked = functions.iter().map(|(_, function)| {
                self.cdp("Runtime.getProperties", json!({ "objectId": function, "ownProperties": true }), deadline)
            });
            let answers = join_all(asked).await;
            let mut out: Vec<(u32, Option<Place>)> = fids.iter().map(|fid| (*fid, None)).collect();
            for ((index, _), answer) in functions.iter().zip(answers) {
                let Ok(answer) = answer else { continue };
                let location = answer["internalProperties"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|p| p["name"] == "[[FunctionLocation]]")
                    .and_then(|p| p.pointer("/value/value"))
                    .and_then(|l| {
                        let script = l.get("scriptId")?.as_str()?.to_owned();
                        let line = l.get("lineNumber")?.as_u64()? as u32 + 1;
                        let column = l.get("columnNumber").and_then(Value::as_u64).unwrap_or(0) as u32 + 1;
                        Some((script, line, column))
                    });
                if let Some(slot) = out.get_mut(*index) {
                    slot.1 = location;
                }
            }
            Ok::<_, BrowserError>(out)
        }
        .await;
        self.cdp_detached("Runtime.releaseObjectGroup", json!({ "objectGroup": NAMING_GROUP }));
        located
    }

    /// The lookup function of the current document, made on first use (`again`: make it anew).
    async fn lookup_function(&self, again: bool, deadline: Instant) -> Result<String, BrowserError> {
        let loader = self.loader_id();
        if !again && let Some(lister) = self.lister().as_ref().filter(|l| l.loader == loader) {
            return Ok(lister.lookup.clone());
        }
        let made = self
            .cdp(
                "Runtime.evaluate",
                json!({ "expression": LISTENERS_AHEAD_JS, "includeCommandLineAPI": true, "objectGroup": LOOKUP_GROUP,
                        "silent": true }),
                deadline,
            )
            .await?;
        let lookup = made
            .pointer("/result/objectId")
            .and_then(Value::as_str)
            .filter(|_| made.get("exceptionDetails").is_none())
            .ok_or_else(|| BrowserError::HelperScript("listeners_ahead.js made no function".into()))?
            .to_owned();
        *self.lister() = Some(Lister { loader, lookup: lookup.clone(), named: HashMap::new() });
        Ok(lookup)
    }
}
