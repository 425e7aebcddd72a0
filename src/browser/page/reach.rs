//! What an action's events reach: the page's listeners on the element the input goes to, its
//! ancestors, the document and the window, listed as the input's first event begins and named
//! after it.
//!
//! Chosen by cost (measured against a click's ≈ 2 ms of raw input on this machine): the page's own
//! world lists them itself, at no round trip — `js/reach_watch.js`, run in every document before the
//! page's scripts with the DevTools command-line API's `getEventListeners`, looks from a capture
//! listener on the window when a trusted pointerdown, pointer move, keydown or beforeinput begins
//! (only the service's input is trusted) and hands the list to the DOM watcher, whose report the
//! action's look at the next task collects anyway. A lookup the service asks for before the input
//! costs a `Runtime.callFunctionOn` (≈ 0.7 ms), listener breakpoints
//! (`DOMDebugger.setEventListenerBreakpoint`, paused, recorded, resumed) ≈ 1.4 ms per listener run
//! and stall the page on every pause, a `DOMDebugger.getEventListeners` per node of the path
//! ≈ 5 ms. Input the page gets untrusted (a value a script sets, an option chosen) is looked up
//! before it, through the same script ([`Page::listeners_ahead`]).
//!
//! Naming the listeners' scripts (`[[FunctionLocation]]` of the functions listed) takes three round
//! trips, run while the action settles, and only for functions not named before in the document
//! (the script numbers each function; the locations are kept per document), so a page's second
//! click on the same control pays nothing.
//!
//! Listed as the first event begins, before any of the page's listeners ran: `once` listeners and
//! listeners on an element the input's handlers then replace are there; listeners added during
//! the dispatch are not, and a listener after one that stopped the event's propagation is (the
//! watcher's note says so).

use std::collections::HashMap;

use futures_util::future::join_all;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::handle::Page;
pub use super::watch::dom::Aimed;
use super::watch::dom::{ListenerSeen, ReachNote};
use super::watch::events::CodeLocation;
use super::watch::views::effects::Mark;
use super::watch::views::reached::ReachedListener;
use crate::browser::chromium::protocol::runtime::{
    CallArgument, CallFunctionOn, Evaluate, GetProperties, ReleaseObjectGroup,
};
use crate::browser::error::BrowserError;

const REACH_ASK_JS: &str = include_str!("../../js/reach_ask.js");
/// The object group the ask function lives in (for the document's life).
const ASK_GROUP: &str = "text-browser-reach";
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

    /// The trusted events the page's watch looks at when this input begins (`BEGINS` in
    /// `js/reach_watch.js`): text is inserted without a key, emptied with Delete.
    fn begun_by(self) -> &'static [&'static str] {
        match self {
            Self::Click | Self::DoubleClick | Self::Check => &["pointerdown"],
            Self::Hover => &["pointermove"],
            Self::Fill | Self::Keys => &["beforeinput", "keydown"],
        }
    }
}

/// The ask function of one document, and the script locations of the functions it named.
#[derive(Debug, Clone, Default)]
pub struct Lister {
    /// The document's loader id.
    loader: String,
    /// The ask function's object id (`js/reach_ask.js`).
    ask: String,
    /// Function number → (script id, line, column), None when it has none (a native function).
    named: HashMap<u32, Option<Place>>,
}

/// Where a function is: (script id, 1-based line, 1-based column).
type Place = (String, u32, u32);

/// Function locations kept per document, at most (a page that makes fresh closures on every
/// render is not remembered forever).
const MAX_KEPT: usize = 512;

/// What an input was about to reach, to be named after it.
#[derive(Debug, Clone)]
pub struct Ahead {
    pub input: Input,
    /// The element the input went to.
    pub target: Option<Aimed>,
    /// The listeners of the input's events, nearest first.
    found: Vec<ListenerSeen>,
    /// The document whose functions they are.
    loader: String,
}

impl Ahead {
    fn of(input: Input, note: ReachNote, loader: String) -> Self {
        let events = input.events();
        let found = note.listeners.into_iter().filter(|l| events.contains(&l.event.as_str())).take(24).collect();
        Ahead { input, target: note.target, found, loader }
    }
}

impl Page {
    /// What `input`, begun since `mark`, was about to reach, as the page's watch listed it (the
    /// list came with the watcher's report the action's look at the next task asked for). None
    /// when no trusted event began it (the pointer did not move, the document went away).
    pub(super) fn reached_since(&self, mark: &Mark, input: Input) -> Option<Ahead> {
        let note = self.watch().store().take_reached(mark.seq, input.begun_by())?;
        Some(Ahead::of(input, note, mark.loader.clone()))
    }

    /// The listeners `input`'s events will reach at viewport point `point` (or the focused element,
    /// without one), asked for before an input the page gets untrusted. None when the page could
    /// not be asked (a child frame, a document going away, a document without the watch).
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
            let ask = self.ask_function(retry, deadline).await.ok()?;
            let look = CallFunctionOn {
                function_declaration: "function (x, y) { return this({ look: { x, y } }); }",
                object_id: Some(&ask),
                arguments: vec![CallArgument::Value { value: x.clone() }, CallArgument::Value { value: y.clone() }],
                return_by_value: true,
                ..CallFunctionOn::default()
            };
            match self.send(look, deadline).await {
                Ok(answer) if answer.exception_details.is_none() => {
                    let note = ReachNote::parse(answer.result.value?)?;
                    return Some(Ahead::of(input, note, self.loader_id()));
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

    /// (script id, line, column) of each listener's function, in order: from what this document's
    /// functions were named before, the rest asked for (the first [`MAX_NAMED`]; none once the
    /// document is gone).
    async fn function_locations(&self, ahead: &Ahead, deadline: Instant) -> Result<Vec<Option<Place>>, BrowserError> {
        let mut named: HashMap<u32, Option<Place>> =
            self.lister().as_ref().filter(|l| l.loader == ahead.loader).map(|l| l.named.clone()).unwrap_or_default();
        let mut wanted: Vec<u32> = Vec::new();
        for found in ahead.found.iter().take(MAX_NAMED) {
            if found.fid != 0 && !named.contains_key(&found.fid) && !wanted.contains(&found.fid) {
                wanted.push(found.fid);
            }
        }
        if !wanted.is_empty() && self.loader_id() == ahead.loader {
            let located = self.locate(&wanted, deadline).await?;
            if let Some(lister) = self.lister().as_mut().filter(|l| l.loader == ahead.loader) {
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
    async fn locate(&self, fids: &[u32], deadline: Instant) -> Result<Vec<(u32, Option<Place>)>, BrowserError> {
        let ask = self.ask_function(false, deadline).await?;
        let take = CallFunctionOn {
            function_declaration: "function (fids) { return this({ take: fids }); }",
            object_id: Some(&ask),
            arguments: vec![CallArgument::Value { value: json!(fids) }],
            object_group: Some(NAMING_GROUP),
            ..CallFunctionOn::default()
        };
        let taken = self.send(take, deadline).await?;
        let located = async {
            let array = taken.result.object_id.unwrap_or_default();
            let functions = self.array_objects(&array, deadline).await?;
            let asked = functions
                .iter()
                .map(|(_, function)| self.send(GetProperties { object_id: function, own_properties: true }, deadline));
            let answers = join_all(asked).await;
            let mut out: Vec<(u32, Option<Place>)> = fids.iter().map(|fid| (*fid, None)).collect();
            for ((index, _), answer) in functions.iter().zip(answers) {
                let Ok(answer) = answer else { continue };
                let location =
                    answer.function_location().map(|l| (l.script_id, l.line_number + 1, l.column_number + 1));
                if let Some(slot) = out.get_mut(*index) {
                    slot.1 = location;
                }
            }
            Ok::<_, BrowserError>(out)
        }
        .await;
        self.send_detached(ReleaseObjectGroup { object_group: NAMING_GROUP });
        located
    }

    /// The ask function of the current document, made on first use (`again`: make it anew).
    async fn ask_function(&self, again: bool, deadline: Instant) -> Result<String, BrowserError> {
        let loader = self.loader_id();
        if !again && let Some(lister) = self.lister().as_ref().filter(|l| l.loader == loader && !l.ask.is_empty()) {
            return Ok(lister.ask.clone());
        }
        let make =
            Evaluate { expression: REACH_ASK_JS, object_group: Some(ASK_GROUP), silent: true, ..Evaluate::default() };
        let made = self.send(make, deadline).await?;
        let ask = made
            .result
            .object_id
            .filter(|_| made.exception_details.is_none())
            .ok_or_else(|| BrowserError::HelperScript("reach_ask.js made no function".into()))?;
        let mut lister = self.lister();
        match lister.as_mut().filter(|l| l.loader == loader) {
            Some(kept) => kept.ask = ask.clone(),
            None => *lister = Some(Lister { loader, ask: ask.clone(), named: HashMap::new() }),
        }
        Ok(ask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::page::watch::dom::REACH_WATCH_JS;

    /// The event types `js/reach_watch.js` lists when an input begins with `begin`.
    fn listed_on(begin: &str) -> Vec<String> {
        let lists = regex::Regex::new(r"const (\w+) = \[([^\]]*)\];").unwrap();
        let table = regex::Regex::new(r"const TYPES_BY_BEGIN = \{([^}]*)\}").unwrap();
        let table = &table.captures(REACH_WATCH_JS).expect("TYPES_BY_BEGIN in reach_watch.js")[1];
        let list = table
            .split(',')
            .find_map(|pair| pair.split_once(':').filter(|(b, _)| b.trim() == begin).map(|(_, l)| l.trim().to_owned()))
            .unwrap_or_else(|| panic!("reach_watch.js lists nothing when {begin} begins an input"));
        let types = lists
            .captures_iter(REACH_WATCH_JS)
            .find(|c| c[1] == list)
            .unwrap_or_else(|| panic!("no list {list} in reach_watch.js"));
        types[2].split(',').map(|t| t.trim().trim_matches('\'').to_owned()).collect()
    }

    #[test]
    fn the_page_lists_every_event_an_input_reports_whichever_event_began_it() {
        for input in [Input::Click, Input::DoubleClick, Input::Hover, Input::Fill, Input::Keys, Input::Check] {
            for begin in input.begun_by() {
                let listed = listed_on(begin);
                for event in input.events() {
                    assert!(listed.iter().any(|t| t == event), "{input:?} begun by {begin}: {event} is not listed");
                }
            }
        }
    }
}
