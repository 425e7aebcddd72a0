//! DOM changes, as the watcher script (`js/dom_watch.js`) reports them, and how one reads in a
//! line (`#results: 10 children replaced`, `button#save: disabled set`); the watcher's notes on how
//! the browser treated the user's clicks, submissions and Enter keys ([`EventNote`]).
//!
//! The script runs in an isolated world of every document from its first moment (installed once
//! per page with [`install`]); it coalesces changes per element over ~50 ms and calls a binding
//! only that world can see. Payloads are parsed leniently and bounded: a change is a short
//! description, never page content beyond a 60-character text excerpt.
//!
//! [`install`] also turns on what tells the service *who* made a change: async stack traces
//! (`Runtime.setAsyncCallStackDepth`), so the watcher's observer callback has the stack of the first
//! change it reports as its async parent, which the watcher hands over through a console call
//! marked [`CAUSE_MARK`] (see `causes`). The Debugger domain is off during loads until the page
//! uses Web Storage (on, it costs every load; `pauses`): `Debugger.getStackTrace` answers without
//! it, and a script named only by id is looked up when needed (`Page::know_scripts`).

use super::exchanged::MessageSeen;
use super::inputs::FieldInput;
use super::kept::KeptState;
use serde::Deserialize;
use tokio::time::Instant;

use crate::browser::chromium::cdp;
use crate::browser::chromium::protocol::page::AddScriptToEvaluateOnNewDocument;
use crate::browser::chromium::protocol::runtime::{AddBinding, SetAsyncCallStackDepth};
use crate::browser::error::BrowserError;

/// The watcher, after the helper library (`page::script`) in top documents: a helper call then
/// finds the library in the world the watcher makes, with no round trip to load it.
const DOM_WATCH_JS: &str = concat!(
    include_str!("../../../js/watch_name.js"),
    "if (window === window.top)\n",
    include_str!("../../../js/lib.js"),
    include_str!("../../../js/dom_watch.js")
);
/// The page's own world's half: the listeners an input is about to reach (`js/reach_watch.js`),
/// React's and Vue's handlers behind their own listeners and the component that rendered an element
/// (`js/framework.js`), in one block (its `const`s are no globals of the page's).
pub(in crate::browser::page) const REACH_WATCH_JS: &str =
    concat!("{\n", include_str!("../../../js/framework.js"), include_str!("../../../js/reach_watch.js"), "}\n");
/// How the page's own world's half names its listeners on the window (`function __textBrowserReach…`),
/// so that what lists a page's listeners leaves them out.
pub const REACH_MARK: &str = "function __textBrowserReach";
/// The binding the watcher reports through (its name is fixed in the script too).
pub const DOM_BINDING: &str = "__textBrowserDom";
/// The first argument of the watcher's console call that hands over a cause (fixed in the script).
pub const CAUSE_MARK: &str = "__textBrowserDomCause";
/// How many async parents a stack keeps: enough for a render in a `then` of a `then` of a fetch.
pub const ASYNC_DEPTH: u32 = 8;
/// The isolated world the watcher runs in, the helpers' world too (`page::script`): Chromium keeps
/// one world per name and frame, so a document pays for one isolated world, not two.
pub const WORLD: &str = "text-browser";
/// A payload larger than this is not ours (the script sends at most a dozen short changes, eight
/// notes, four lists of reached listeners of at most 32 K characters each, twenty 4 K message notes).
const MAX_PAYLOAD: usize = 256 * 1024;
/// Causes one change names at most (the script sends at most three).
const MAX_CAUSES: usize = 3;
/// Elements added or removed one change names at most (the script sends at most two).
const MAX_NAMED: usize = 2;

/// One element's change within one coalescing window.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct DomChange {
    /// When it happened: ms since the Unix epoch, by the page's clock.
    #[serde(rename = "t")]
    pub at: f64,
    /// The element, described briefly (`#results`, `button.primary`, `#app ul`).
    #[serde(rename = "el")]
    pub element: String,
    #[serde(default)]
    pub added: u32,
    #[serde(default)]
    pub removed: u32,
    /// The tag of every added element, when they share one.
    #[serde(default)]
    pub tag: Option<String>,
    /// The elements added, named (`section#late-panel "Report"`), when they were one or two and
    /// none was removed.
    #[serde(default)]
    pub named: Vec<String>,
    /// The elements removed, named, when they were one or two and none was added.
    #[serde(default)]
    pub gone: Vec<String>,
    /// Its text before and after, when that changed (60 characters each at most).
    #[serde(default)]
    pub text: Option<(String, String)>,
    /// State attributes that changed: (name, before, after); `None` = absent.
    #[serde(default)]
    pub attrs: Vec<(String, Option<String>, Option<String>)>,
    /// The user input this change followed in the same task (`keydown on #q`).
    #[serde(default)]
    pub input: Option<String>,
    /// Past the script's per-window limit: how many more elements under this one changed.
    #[serde(default)]
    pub others: u32,
    /// The causes (see `causes`) of the observer callbacks that reported it, first first.
    #[serde(default)]
    pub causes: Vec<u32>,
    /// The component that rendered the element, when React or Vue did.
    #[serde(default)]
    pub component: Option<ComponentSeen>,
}

/// A framework the page's own world recognises (`js/framework.js`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Framework {
    React,
    Vue,
    #[serde(other)]
    Other,
}

/// The component (React's or Vue's) that rendered an element, as the page's own world saw it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ComponentSeen {
    #[serde(rename = "fw")]
    pub framework: Framework,
    /// Its function's or single-file component's name (minified in a production React build).
    #[serde(default)]
    pub name: String,
    /// Its function's number in its document (0: none), for a minified name to be mapped back
    /// through where the function is.
    #[serde(default)]
    pub fid: u32,
}

/// What the watcher says of an input event the user made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoteKind {
    Click,
    Submit,
    /// An Enter key (the only key with a default the watcher notes).
    Keydown,
    #[serde(other)]
    Other,
}

/// How the browser treated one click, submission or Enter key of the user's.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EventNote {
    /// When it was dispatched: ms since the Unix epoch, by the page's clock.
    #[serde(rename = "t")]
    pub at: f64,
    #[serde(rename = "type")]
    pub kind: NoteKind,
    /// The element it was dispatched to.
    pub on: String,
    /// What the browser does by default (`submits form#login (POST /login)`, `follows the link to
    /// /next`, `no default action (a type="button" button submits no form)`); none when nothing is known.
    #[serde(default)]
    pub default: Option<String>,
    /// A listener called preventDefault (or an inline handler returned false).
    #[serde(default)]
    pub prevented: bool,
    /// It reached the window's bubble phase (false: a listener stopped its propagation).
    #[serde(default)]
    pub bubbled: bool,
}

/// The element an input went to, as the page's own world saw it.
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

/// A listener an input was about to reach (`js/reach_watch.js`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ListenerSeen {
    /// The node it is on (`button#save`, `document`, `window`).
    pub on: String,
    #[serde(rename = "type")]
    pub event: String,
    #[serde(default)]
    pub capture: bool,
    /// The function's name, if it has one.
    #[serde(default)]
    pub name: String,
    /// The code of an inline attribute handler (`onsubmit="return false"`).
    #[serde(default)]
    pub inline: Option<String>,
    /// Its code calls preventDefault (or, inline, returns false).
    #[serde(default)]
    pub prevents: bool,
    /// The function's number in its document (0: none).
    #[serde(default)]
    pub fid: u32,
    /// The framework that calls it: the function is a component's handler React or Vue runs
    /// behind its own listener (or, with `delegation`, React's own listeners on its root).
    #[serde(default, rename = "fw")]
    pub framework: Option<Framework>,
    /// React's prop it was given as (`onClick`).
    #[serde(default)]
    pub prop: Option<String>,
    /// The component that rendered the element it is on.
    #[serde(default, rename = "comp")]
    pub component: Option<ComponentSeen>,
    /// React's event delegation on its root: how many of its listeners this one entry stands for.
    #[serde(default)]
    pub delegation: u32,
}

/// The listeners one input was about to reach when its first event began, along its path.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ReachNote {
    /// The event that began the input: `pointerdown`, `pointermove`, `keydown`, `beforeinput`
    /// (empty for a list the service asked for).
    #[serde(default)]
    pub by: String,
    /// The element it went to (none: not an element).
    #[serde(default)]
    pub target: Option<Aimed>,
    #[serde(default)]
    pub listeners: Vec<ListenerSeen>,
    /// A click there toggles a checkbox or radio: its default action fires `input` and `change`
    /// on it (listed too, along its own path when the click went to its label).
    #[serde(default)]
    pub toggles: bool,
}

/// One payload of the watcher: changes, notes on input events, and what inputs were to reach.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct WatchReport {
    #[serde(default)]
    pub changes: Vec<DomChange>,
    /// States set to what they were.
    #[serde(default)]
    pub kept: Vec<KeptState>,
    /// Fields the session put values into.
    #[serde(default)]
    pub fields: Vec<FieldInput>,
    #[serde(default)]
    pub events: Vec<EventNote>,
    /// Each list as the page's world wrote it (JSON text), read apart: one the page forged cannot
    /// spoil the rest of the report.
    #[serde(default, deserialize_with = "lists_from_text")]
    pub reached: Vec<ReachNote>,
    /// Messages the window got, each as the page's world wrote it (JSON text), read apart.
    #[serde(default, deserialize_with = "super::exchanged::messages_from_text")]
    pub messages: Vec<MessageSeen>,
}

/// The watcher's `reached`: JSON texts, each a [`ReachNote`]; those that are not one are left out.
fn lists_from_text<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<ReachNote>, D::Error> {
    let texts: Vec<String> = Deserialize::deserialize(deserializer)?;
    Ok(texts.iter().filter_map(|text| serde_json::from_str::<ReachNote>(text).ok()).collect())
}

impl DomChange {
    /// `count` children of `element` replaced at `at`, nothing else (for tests).
    #[cfg(test)]
    pub fn replaced_children(element: &str, at: f64, count: u32) -> Self {
        Self {
            at,
            element: element.into(),
            added: count,
            removed: count,
            tag: None,
            named: vec![],
            gone: vec![],
            text: None,
            attrs: vec![],
            input: None,
            others: 0,
            causes: vec![],
            component: None,
        }
    }

    /// What changed, without the element: `10 children replaced; text "a" → "b"`.
    pub fn what(&self) -> String {
        let mut parts = Vec::new();
        if self.others > 0 {
            parts.push(format!("{} elements inside changed", self.others));
        }
        let noun = |n: u32| match (self.tag.as_deref(), n) {
            (Some("tr"), 1) => "row",
            (Some("tr"), _) => "rows",
            (Some("li"), 1) => "item",
            (Some("li"), _) => "items",
            (Some("option"), 1) => "option",
            (Some("option"), _) => "options",
            (_, 1) => "child",
            _ => "children",
        };
        match (self.added, self.removed) {
            // Named in the line's head instead (see `line`).
            _ if self.names_added() || self.names_removed() => {}
            (0, 0) => {}
            (a, 0) => parts.push(format!("{a} {} added", noun(a))),
            (0, r) => parts.push(format!("{r} {} removed", if r == 1 { "child" } else { "children" })),
            (a, r) if a == r => parts.push(format!("{a} {} replaced", noun(a))),
            (a, r) => parts.push(format!("{r} children replaced by {a} {}", noun(a))),
        }
        if let Some((before, after)) = &self.text {
            parts.push(format!("text {} → {}", quoted(before), quoted(after)));
        }
        for (name, before, after) in &self.attrs {
            parts.push(match (name.as_str(), before, after) {
                (_, None, Some(v)) if v.is_empty() || v == name => format!("{name} set"),
                (_, Some(_), None) => format!("{name} removed"),
                (_, None, Some(v)) => format!("{name}={}", quoted(v)),
                (_, Some(b), Some(a)) => format!("{name} {} → {}", quoted(b), quoted(a)),
                (_, None, None) => continue,
            });
        }
        parts.join("; ")
    }

    /// `#results: 10 children replaced`; what was added or removed by name when it was one or two
    /// elements: `section#late-panel "Report" added to #slot`.
    pub fn line(&self) -> String {
        let what = self.what();
        let head = if self.names_added() {
            format!("{} added to {}", self.named.join(", "), self.element)
        } else if self.names_removed() {
            format!("{} removed from {}", self.gone.join(", "), self.element)
        } else {
            return format!("{}: {what}", self.element);
        };
        if what.is_empty() { head } else { format!("{head}; {what}") }
    }

    /// Every element added is named (and none was removed).
    fn names_added(&self) -> bool {
        self.removed == 0 && self.added > 0 && self.named.len() == self.added as usize
    }

    /// Every element removed is named (and none was added).
    fn names_removed(&self) -> bool {
        self.added == 0 && self.removed > 0 && self.gone.len() == self.removed as usize
    }

    /// A rough size in bytes, for the timeline's byte cap.
    pub fn bytes(&self) -> usize {
        let attrs: usize = self
            .attrs
            .iter()
            .map(|(n, b, a)| n.len() + b.as_ref().map_or(0, String::len) + a.as_ref().map_or(0, String::len))
            .sum();
        64 + self.element.len()
            + self.text.as_ref().map_or(0, |(b, a)| b.len() + a.len())
            + attrs
            + self.input.as_ref().map_or(0, String::len)
            + self.component.as_ref().map_or(0, |c| 16 + c.name.len())
    }
}

fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// Parses the watcher's payload (`{changes, events, reached}`); `None` when it is not one.
pub fn parse_payload(payload: &str) -> Option<WatchReport> {
    // An object only (serde would also read a struct from an array).
    if payload.len() > MAX_PAYLOAD || !payload.trim_start().starts_with('{') {
        return None;
    }
    let mut report: WatchReport = serde_json::from_str(payload).ok()?;
    report.changes.truncate(32);
    for change in &mut report.changes {
        change.element = change.element.chars().take(120).collect();
        change.causes.truncate(MAX_CAUSES);
        for names in [&mut change.named, &mut change.gone] {
            names.truncate(MAX_NAMED);
            for name in names.iter_mut() {
                *name = name.chars().take(120).collect();
            }
        }
    }
    report.kept.truncate(8);
    report.kept.iter_mut().for_each(|kept| kept.trim(MAX_CAUSES));
    report.fields.truncate(8);
    report.fields.iter_mut().for_each(FieldInput::trim);
    report.events.truncate(8);
    for note in &mut report.events {
        note.on = note.on.chars().take(120).collect();
        note.default = note.default.take().map(|d| d.chars().take(300).collect());
    }
    report.messages.truncate(20);
    report.reached.truncate(4);
    report.reached = report.reached.into_iter().map(ReachNote::bounded).collect();
    Some(report)
}

impl ReachNote {
    /// Parses a list the page's script answered with (`{target, listeners}`), bounded.
    pub fn parse(value: serde_json::Value) -> Option<Self> {
        serde_json::from_value::<Self>(value).ok().map(Self::bounded)
    }

    /// Cut to what the script sends at most: 48 listeners, short strings (the page may send
    /// anything in its place).
    fn bounded(mut self) -> Self {
        self.by = self.by.chars().take(16).collect();
        self.listeners.truncate(48);
        for listener in &mut self.listeners {
            listener.on = listener.on.chars().take(120).collect();
            listener.event = listener.event.chars().take(16).collect();
            listener.name = listener.name.chars().take(80).collect();
            listener.inline = listener.inline.take().map(|code| code.chars().take(200).collect());
        }
        if let Some(target) = &mut self.target {
            for field in [&mut target.tag, &mut target.id, &mut target.cls, &mut target.text, &mut target.name] {
                *field = field.chars().take(120).collect();
            }
        }
        self
    }
}

/// Which documents the watcher starts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watcher {
    /// The page's current document too: a popup taken on may have loaded its document already.
    FromThisDocument,
    /// Only documents loaded from now on: a page just opened on about:blank has nothing to
    /// watch, and making the watcher's world there costs every warm session's open.
    FromNextDocument,
}

/// Installs the watcher on `page`: async stack traces, the binding it reports through, and the
/// script itself in every document from now on (and the current one when `watcher` says so).
///
/// With it goes `js/reach_watch.js`, in the page's own world with the DevTools command-line API:
/// it lists the listeners each input is about to reach and hands them to the watcher.
///
/// The four commands are sent at once: Chromium runs one session's commands in order, so the
/// binding is there before either script runs.
pub async fn install(page: &chromiumoxide::Page, watcher: Watcher, deadline: Instant) -> Result<(), BrowserError> {
    let now = watcher == Watcher::FromThisDocument;
    let watch = AddScriptToEvaluateOnNewDocument {
        source: DOM_WATCH_JS,
        world_name: Some(WORLD),
        run_immediately: now,
        include_command_line_api: false,
    };
    let reach = AddScriptToEvaluateOnNewDocument {
        source: REACH_WATCH_JS,
        world_name: None,
        run_immediately: now,
        include_command_line_api: true,
    };
    let (depth, binding, watch, reach) = tokio::join!(
        cdp::send(page, SetAsyncCallStackDepth { max_depth: ASYNC_DEPTH }, deadline),
        cdp::send(page, AddBinding { name: DOM_BINDING, execution_context_name: WORLD }, deadline),
        cdp::send(page, watch, deadline),
        cdp::send(page, reach, deadline),
    );
    depth?;
    binding?;
    watch?;
    reach?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_script_reports_through_the_binding_and_the_marker_the_service_listens_to() {
        assert!(DOM_WATCH_JS.contains(DOM_BINDING));
        // The library sits behind `if (window === window.top)`: it must stay one statement, the
        // one expression that calls its function, after its comments.
        let lib = include_str!("../../../js/lib.js");
        let code: Vec<&str> = lib.lines().filter(|l| !l.starts_with("//") && !l.trim().is_empty()).collect();
        assert_eq!(code.first(), Some(&"(() => {"), "the library starts its one statement");
        assert_eq!(code.last(), Some(&"})();"), "and ends it");
        assert!(!code[1..code.len() - 1].iter().any(|l| !l.starts_with(' ')), "with nothing else at the top level");
        assert_eq!(REACH_WATCH_JS.matches(REACH_MARK).count(), 4, "its four listeners are named");
        assert!(DOM_WATCH_JS.contains(CAUSE_MARK));
    }

    #[test]
    fn each_list_of_reached_listeners_is_read_apart_and_a_forged_one_spoils_nothing() {
        let good = r##"{"by":"pointerdown","t":1,"target":{"tag":"button","id":"save","cls":"","text":"Save","name":"button#save"},"listeners":[{"on":"button#save","type":"click","capture":false,"name":"save","prevents":true,"fid":3}]}"##;
        let payload = json!({
            "changes": [{ "t": 1.5, "el": "#result", "added": 1, "removed": 0, "attrs": [] }],
            "reached": [good, "{\"by\": 7}", "]} not json"],
            "messages": [r#"{"t":2,"origin":"http://a","listeners":[{"name":"onHello","fid":4}]}"#, "{\"t\": \"x\"}"],
        });
        let report = parse_payload(&payload.to_string()).expect("the report is read");
        assert_eq!(report.changes.len(), 1);
        assert_eq!(
            report.messages.iter().map(|m| m.listeners[0].fid).collect::<Vec<_>>(),
            vec![4],
            "one message is one"
        );
        assert_eq!(report.reached.len(), 1, "only the list that is one: {:?}", report.reached);
        let list = &report.reached[0];
        assert_eq!(
            (list.by.as_str(), list.listeners[0].name.as_str(), list.listeners[0].fid),
            ("pointerdown", "save", 3)
        );
        assert!(list.listeners[0].prevents);
        assert_eq!(list.target.as_ref().map(|t| t.name.as_str()), Some("button#save"));
    }

    #[test]
    fn a_change_reads_as_one_line() {
        let changes = parse_payload(
            r##"{"changes":[{"t":1.5,"el":"#table","added":24,"removed":0,"tag":"tr","text":null,"attrs":[],"input":null},
                 {"t":1.5,"el":"#loading","added":0,"removed":0,"attrs":[["hidden",null,""]],"causes":[3,4,5,6]},
                 {"t":2,"el":"#results","added":3,"removed":3,"tag":"li","text":["old","new"],"attrs":[["class","a","a busy"]]},
                 {"t":3,"el":"#grid","others":1990}]}"##,
        )
        .unwrap()
        .changes;
        assert_eq!(changes[1].causes, vec![3, 4, 5], "at most three causes are kept");
        assert_eq!(changes[0].line(), "#table: 24 rows added");
        assert_eq!(changes[1].line(), "#loading: hidden set");
        assert_eq!(changes[2].line(), r#"#results: 3 items replaced; text "old" → "new"; class "a" → "a busy""#);
        assert_eq!(changes[3].line(), "#grid: 1990 elements inside changed");
    }

    #[test]
    fn one_or_two_elements_added_or_removed_are_named() {
        let report = parse_payload(
            r##"{"changes":[{"t":1,"el":"#slot","added":1,"removed":0,"named":["section#late-panel \"Report\""]},
                 {"t":2,"el":"#list","added":0,"removed":2,"gone":["li \"Ada\"","li \"Grace\""],"text":["AdaGrace",""]},
                 {"t":3,"el":"#list","added":3,"removed":0,"named":["li","li"]}],
                "kept":[{"t":4,"el":"#subscribe","attrs":[["disabled",""]],"input":"input on #name","causes":[7]}]}"##,
        )
        .unwrap();
        let lines: Vec<String> = report.changes.iter().map(DomChange::line).collect();
        assert_eq!(lines[0], r#"section#late-panel "Report" added to #slot"#);
        assert_eq!(lines[1], r#"li "Ada", li "Grace" removed from #list; text "AdaGrace" → """#);
        assert_eq!(lines[2], "#list: 3 children added", "names only when every element has one");
        assert_eq!(report.kept[0].attrs, vec![("disabled".to_owned(), Some(String::new()))]);
        assert_eq!(report.kept[0].causes, vec![7]);
    }

    #[test]
    fn a_payload_that_is_not_ours_is_ignored() {
        assert!(parse_payload("not json").is_none());
        assert!(parse_payload("[]").is_none());
        assert!(parse_payload(&"x".repeat(MAX_PAYLOAD + 1)).is_none());
        assert_eq!(parse_payload("{}"), Some(WatchReport::default()));
    }

    #[test]
    fn event_notes_keep_what_the_browser_did_by_default() {
        let report = parse_payload(
            r##"{"changes":[],"events":[{"t":5,"type":"click","on":"#save","default":"no default action (a type=\"button\" button submits no form)","prevented":false,"bubbled":true},
                 {"t":6,"type":"submit","on":"#login","default":"submits #login (POST /login)","prevented":true,"bubbled":false},
                 {"t":7,"type":"wheel","on":"#x"}]}"##,
        )
        .unwrap();
        assert_eq!(report.events.len(), 3);
        assert_eq!(report.events[0].kind, NoteKind::Click);
        assert!(report.events[1].prevented && !report.events[1].bubbled);
        assert_eq!(report.events[2].kind, NoteKind::Other);
    }

    #[test]
    fn a_listener_list_from_the_page_is_cut_to_the_scripts_own_bounds() {
        let listener =
            json!({ "on": "b".repeat(500), "type": "click", "name": "n".repeat(500), "inline": "x".repeat(5000) });
        let note = ReachNote::parse(json!({ "target": { "tag": "t".repeat(500) }, "listeners": vec![listener; 100] }))
            .expect("a list");
        assert_eq!(note.listeners.len(), 48);
        assert_eq!(note.by, "", "a list the service asked for has no beginning event");
        let first = &note.listeners[0];
        assert_eq!((first.on.len(), first.name.len(), first.inline.as_ref().map(String::len)), (120, 80, Some(200)));
        assert_eq!(note.target.map(|t| t.tag.len()), Some(120));
        assert!(ReachNote::parse(json!("not a list")).is_none());
    }
}
