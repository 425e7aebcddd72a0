//! What our page scripts answer (see `scripts`): each script's answer as a struct, read once
//! where the call returns. Kept apart from the rooms that use them, so the table can name them
//! without depending on those rooms.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::browser::page::watch::dom::Aimed;
use crate::browser::pointer::{Approach, PointerTarget, Rect};

/// What the actionability probe says (`js/probe.js`): ready, or what is still missing.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Probed {
    Ready(Box<Ready>),
    Waiting(Waiting),
}

/// Where an element ended up once it was ready.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ready {
    pub x: f64,
    #[serde(default)]
    pub y: f64,
    #[serde(default)]
    pub page_x: f64,
    #[serde(default)]
    pub page_y: f64,
    #[serde(default)]
    pub width: f64,
    #[serde(default)]
    pub height: f64,
    /// The element takes a value rather than typed text (date, color, range inputs).
    #[serde(default)]
    pub set_value: bool,
    /// The element is a password field (reported for fills only).
    #[serde(default)]
    pub password: bool,
    /// What the probe's scroll avoided on the way to it.
    #[serde(default)]
    pub approach: Approach,
    /// The DOM watcher's names of the element and its ancestors.
    #[serde(default)]
    pub watch: Vec<String>,
}

/// Not ready yet: why, and what the scroll on the way avoided.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Waiting {
    /// "is covered by …", "is not visible" …
    #[serde(default)]
    pub wait: Option<String>,
    /// Nothing matches yet (a page still rendering it): looked for again after a longer pause.
    #[serde(default)]
    pub missing: bool,
    #[serde(default)]
    pub approach: Option<Approach>,
}

/// What is at a viewport point (`js/point.js`): what was hit, or why the point is refused.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct PointAt {
    #[serde(default)]
    pub hit: Option<PointerTarget>,
    /// The point is outside the viewport: the sentence saying so, and the coordinate at fault.
    #[serde(default)]
    pub outside: Option<String>,
    #[serde(default)]
    pub axis: Option<Axis>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Axis {
    X,
    Y,
}

/// What kind of field an element is (`js/field_kind.js`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct FieldKind {
    #[serde(default)]
    pub kind: Field,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Field {
    Checkbox,
    Radio,
    Select,
    /// Text, or anything else that takes typing.
    #[default]
    #[serde(other)]
    Text,
}

impl Field {
    pub fn name(self) -> &'static str {
        match self {
            Self::Checkbox => "checkbox",
            Self::Radio => "radio",
            Self::Select => "select",
            Self::Text => "text",
        }
    }
}

/// What the page shows of a target now (`js/observe.js`): how many elements match and are
/// visible, and of the first few their text, value (null where there is none), whether each is a
/// password field, and checked state.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Observed {
    #[serde(default)]
    pub count: u64,
    #[serde(default)]
    pub visible: u64,
    #[serde(default)]
    pub texts: Vec<String>,
    #[serde(default)]
    pub values: Vec<Option<String>>,
    #[serde(default)]
    pub passwords: Vec<bool>,
    #[serde(default)]
    pub checked: Vec<bool>,
}

/// The document's HTML cut to what was asked for, and its whole length (`js/content.js`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Content {
    #[serde(default)]
    pub html: String,
    #[serde(default)]
    pub length: u64,
}

/// A selector for an element of a role query, and how many it matched (`js/unique_selector.js`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct UniqueSelector {
    #[serde(default)]
    pub selector: String,
    #[serde(default)]
    pub count: u64,
}

/// A popup's requests before it was adopted (`js/early_requests.js`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct EarlyRequests {
    /// It has not loaded a document yet.
    #[serde(default)]
    pub blank: bool,
    /// Requests of every kind, its document included.
    #[serde(default)]
    pub count: u64,
    /// Its fetch and XHR requests (at most 20).
    #[serde(default)]
    pub requests: Vec<EarlyRequest>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct EarlyRequest {
    #[serde(default)]
    pub url: String,
    /// 0 where the browser does not expose it.
    #[serde(default)]
    pub status: u64,
}

/// An origin's web storage (`js/web_storage.js`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Stored {
    #[serde(default)]
    pub origin: String,
    #[serde(default)]
    pub items: Vec<StoredItem>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct StoredItem {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub value: String,
}

/// One axe-core violation (`js/axe_run.js`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxeViolation {
    pub id: String,
    #[serde(default)]
    pub impact: Option<String>,
    #[serde(default)]
    pub help: String,
    #[serde(default)]
    pub help_url: String,
    #[serde(default)]
    pub nodes: Vec<AxeNode>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AxeNode {
    #[serde(default)]
    pub target: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
}

/// A script that hands back an object by reference: its answer is read as an object id, never
/// as a value (reading one as a value fails).
#[derive(Debug, Clone, Copy, Deserialize)]
pub enum ByReference {}

/// The element an action touched, showing a sign of work in progress it did not show before the
/// action (`js/lib.js` `busy`).
#[derive(Debug, Clone, Deserialize)]
pub struct Busy {
    /// tag#id.class "text".
    pub element: String,
    /// The DOM watcher's name of it.
    pub watch: String,
    /// disabled, aria-busy.
    #[serde(default)]
    pub states: Vec<String>,
    /// A spinner shown since the action.
    #[serde(default)]
    pub spinner: Option<String>,
    /// Its form, aria-busy since the action.
    #[serde(default)]
    pub form: Option<String>,
    /// Disabled since the action and no other sign: busy only if something went wrong meanwhile
    /// (a handler that threw or a request that failed leaves it so; a form that is done may
    /// disable its button on purpose).
    #[serde(default, rename = "disabledOnly")]
    pub disabled_only: bool,
}

/// What a look at the page answered with (`js/next_task.js`, `js/flush_dom.js`).
#[derive(Debug, Default, Deserialize)]
pub struct Looked {
    #[serde(default)]
    busy: Option<serde_json::Value>,
    /// The DOM watcher's report (its JSON), delivered with the answer.
    #[serde(default)]
    pub report: Option<String>,
    /// The document's URL and title (`js/flush_dom.js`).
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    /// A `<meta http-equiv="refresh">` sends the page on within a second (a redirect, to Chromium).
    #[serde(default)]
    pub refresh: bool,
    /// Where the document is scrolled to: CSS pixels, x and y (`js/flush_dom.js`).
    #[serde(default)]
    pub scroll: Option<(f64, f64)>,
}

impl Looked {
    /// The busy sign of the control an action touched, if it shows one.
    pub fn busy(&self) -> Option<Busy> {
        self.busy.clone().and_then(|busy| serde_json::from_value(busy).ok())
    }
}

/// What `js/settle.js` answers: still pending, why the value is not JSON, its length when too
/// large, or its JSON (none for `undefined`).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettleAnswer {
    #[serde(default)]
    pub pending: bool,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub too_large: Option<u64>,
    #[serde(default)]
    pub json: Option<String>,
}

/// What page.snapshot's scan found (see `snapshot_scan.js`).
#[derive(Deserialize)]
pub struct ScanSummary {
    pub pointers: usize,
    pub runs: Vec<usize>,
    pub roots: usize,
    pub overflow: bool,
}

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
    /// Where the handler is: `url:line:column`, in the app's source where a map says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// A component's handler behind React or Vue: `onClick = submit in <ClaimForm>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handler: Option<String>,
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
    pub(in crate::browser::page) watch: Vec<String>,
    /// What it looks like, to find an element it replaced.
    #[serde(default, skip_serializing)]
    #[schemars(skip)]
    pub(in crate::browser::page) looks: Option<Aimed>,
}
