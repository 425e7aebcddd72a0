//! The views of a page's timeline: what each answer shows of it, shaped for its reader, masked
//! and bounded, and the only place its records are put into words.
//!
//! - `logs`: logs.pull
//! - `network`: network.pull, network.body
//! - `har`: network.har
//! - `effects`: an action's effects
//! - `reached`: the listeners an action reached and the browser's default
//! - `changes`: one element's history, for page.inspect
//! - `lines`: page.timeline
//! - `live`: events.subscribe
//! - `sockets`: sockets and streams as lines and facts (effects, load report)
//! - `messages`: messages between windows as lines and facts, with what their listeners started
//! - `storage`: Web Storage writes and reads as lines, with their script lines
//! - `wire`: a request hop's headers and cookies, an action's cookie lines, a redirect chain
//! - `reactions`: who made a DOM change and what it was reacting to; which request a page error
//!   happened during
//! - `places`: locations read through the session's source maps (the app's own file, line and
//!   function; library code set aside), and the scripts an answer needs maps of
//! - `wording`: how the typed notes read (a dialog and its answer, a download, a popup, an action)
//!
//! Here too: the signal counts every action and navigation answers with, and a DOM change's cause
//! as one phrase.

pub mod changes;
pub mod effects;
pub mod har;
pub mod lines;
pub mod live;
pub mod logs;
pub mod messages;
pub mod network;
pub mod places;
pub mod reached;
pub mod reactions;
pub mod sockets;
pub mod storage;
pub mod wire;
pub mod wording;

use schemars::JsonSchema;
use serde::Serialize;

use super::dom::DomChange;
use super::store::Store;
use super::timeline::Timeline;
use places::Places;

/// Counts of error entries waiting in `logs.pull` / `network.pull` since the last pull.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignalCounts {
    pub console_errors: u64,
    pub page_errors: u64,
    pub failed_requests: u64,
}

pub fn signal_counts(store: &Store) -> SignalCounts {
    let (console_errors, page_errors, failed_requests) = store.timeline.counts();
    SignalCounts { console_errors, page_errors, failed_requests }
}

/// ` in <ClaimForm> by updateForm (/signup:61) ← input on #email`: the component that rendered the
/// element of `change` (of a DOM record of `document`) when React or Vue did, the app's code that
/// made it and what it was reacting to (a response of the requests `among` names), as far as its
/// causes tell; empty when nothing is known. A change a framework's own code made (a React commit)
/// is named by its component alone.
pub fn dom_cause(
    store: &Store,
    document: u64,
    change: &DomChange,
    at: f64,
    places: &Places,
    among: reactions::Among,
) -> String {
    let stack = store.causes.first_of(document, &change.causes);
    let component = change.component.as_ref().map(|c| places.component(c)).filter(|name| !name.is_empty());
    let by = stack.and_then(|stack| reactions::by(stack, places, component.is_some()));
    let reaction = reactions::reacting(stack, change.input.as_deref(), &store.timeline, at, places, among)
        .map(|r| format!(" ← {r}"))
        .unwrap_or_default();
    let component = component.map(|name| format!(" in <{name}>")).unwrap_or_default();
    let by = by.map(|by| format!(" by {by}")).unwrap_or_default();
    format!("{component}{by}{reaction}")
}

/// `at` in ms since the document it belongs to started loading.
pub fn ms_since(timeline: &Timeline, at: f64) -> i64 {
    (at - timeline.origin_of(at)).round() as i64
}
