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
//! before it, through the same script (`locate::lister`).
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

use tokio::time::Instant;

use crate::browser::chromium::ids::LoaderId;
use crate::browser::page::handle::Page;
use crate::browser::page::locate::target::Target;
use crate::browser::page::watch::cdp_events::CodeLocation;
pub use crate::browser::page::watch::dom::Aimed;
use crate::browser::page::watch::dom::{ListenerSeen, ReachNote};
use crate::browser::page::watch::views::effects::Mark;
use crate::browser::page::watch::views::places::{Places, parts_of};
use crate::browser::page::watch::views::reached::ReachedListener;
use crate::browser::redact::Redactor;

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

/// What an input was about to reach, to be named after it.
#[derive(Debug, Clone)]
pub struct Ahead {
    pub input: Input,
    /// The element the input went to.
    pub target: Option<Aimed>,
    /// The listeners of the input's events, nearest first.
    found: Vec<ListenerSeen>,
    /// The document whose functions they are.
    loader: LoaderId,
}

impl Ahead {
    fn of(input: Input, note: ReachNote, loader: LoaderId) -> Self {
        // A click on a checkbox or radio (or its label) reaches what checking it does: its default
        // action fires `input` and `change`, whose listeners (Vue's v-model, React's onChange) ran.
        let toggled = note.toggles && input == Input::Click;
        let events = if toggled { Input::Check.events() } else { input.events() };
        let found = note.listeners.into_iter().filter(|l| events.contains(&l.event.as_str())).take(24).collect();
        Ahead { input, target: note.target, found, loader }
    }
}

/// `input` on `target`, for its listeners (none for an element in a child frame, whose document
/// the page's watch does not list).
pub(super) fn input_on(page: &Page, target: &Target, input: Input) -> Option<Input> {
    page.locate().ref_child_frame(target).is_none().then_some(input)
}

/// What `input`, begun since `mark`, was about to reach, as the page's watch listed it (the list
/// came with the watcher's report the action's look at the next task asked for). None when no
/// trusted event began it (the pointer did not move, the document went away).
pub(super) fn reached_since(page: &Page, mark: &Mark, input: Input) -> Option<Ahead> {
    let note = page.watch().store().take_reached(mark.seq, input.begun_by())?;
    Some(Ahead::of(input, note, mark.loader.clone()))
}

/// The listeners `input`'s events will reach on `target` (at viewport point `point`, or the focused
/// element without one), asked for before an input the page gets untrusted. None when the page
/// could not be asked (an element in a child frame, whose page the lookup does not see, a
/// document going away, a document without the watch).
pub(super) async fn ahead_of(
    page: &Page,
    target: &Target,
    input: Input,
    point: Option<(f64, f64)>,
    deadline: Instant,
) -> Option<Ahead> {
    if page.locate().ref_child_frame(target).is_some() {
        return None;
    }
    let note = page.locate().listing().look_ahead(point, deadline).await?;
    Some(Ahead::of(input, note, page.loader_id()))
}

/// The listeners looked up before the input, each with where its function is, read through the
/// session's source maps (its original name and file), and — behind React's or Vue's own
/// listeners — the component that rendered its element.
pub(super) async fn name_reached(page: &Page, ahead: &Ahead, deadline: Instant) -> Vec<ReachedListener> {
    let (named, _) = name_listed(page, &ahead.found, &ahead.loader, deadline).await;
    named.into_iter().map(|(listener, _)| listener).collect()
}

/// The listeners `found` (listed by the page's world in the document `loader`) named, each with
/// where its function is as served; and the places they were read through.
pub(in crate::browser::page) async fn name_listed(
    page: &Page,
    found: &[ListenerSeen],
    loader: &LoaderId,
    deadline: Instant,
) -> (Vec<(ReachedListener, Option<CodeLocation>)>, Places) {
    let component_fid = |found: &ListenerSeen| found.component.as_ref().map_or(0, |c| c.fid);
    let fids: Vec<u32> = found.iter().flat_map(|found| [found.fid, component_fid(found)]).collect();
    let functions = page.locate().listing().locations(&fids, loader, deadline).await;
    let scripts: Vec<String> = functions.values().map(|at| at.url.clone()).collect();
    let places = Places { maps: page.maps_for(&scripts, deadline).await, functions };
    let redactor = page.watch().store().redactor.clone();
    let named = found
        .iter()
        .map(|found| {
            let at = places.functions.get(&found.fid).filter(|_| found.inline.is_none()).cloned();
            (reached_listener(found, &places, &redactor), at)
        })
        .collect();
    (named, places)
}

/// One listener found, named (see [`name_reached`]).
fn reached_listener(found: &ListenerSeen, places: &Places, redactor: &Redactor) -> ReachedListener {
    let at = places.functions.get(&found.fid).filter(|_| found.inline.is_none());
    let (function, spot) = match at {
        Some(at) => {
            let named = CodeLocation { function: found.name.clone(), ..at.clone() };
            let (function, spot) = parts_of(&named, &places.resolve(&named));
            (function, Some(spot))
        }
        None => (found.name.clone(), None),
    };
    ReachedListener {
        event: found.event.clone(),
        on: found.on.clone(),
        capture: found.capture,
        function,
        spot,
        inline: found.inline.as_ref().map(|code| redactor.text(code)),
        prevents: found.prevents,
        framework: found.framework,
        prop: found.prop.clone(),
        component: found.component.as_ref().map(|c| places.component(c)).filter(|name| !name.is_empty()),
        delegation: found.delegation,
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
