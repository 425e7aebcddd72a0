//! What applying events asks of the pump — commands to run, signals for live subscribers,
//! requests to look at again, a held request, popups for the session — and the one way a
//! sub-reducer files a note that live subscribers see too.

use super::super::clock::Now;
use super::super::commands::Command;
use super::super::notes::Signal;
use super::super::records::Record;
use super::super::store::Store;
use crate::browser::chromium::ids::{FetchRequestId, RequestId, TargetId};

/// What applying events asks of the pump.
#[derive(Debug, Default)]
pub struct Outbox {
    pub commands: Vec<Command>,
    /// For live subscribers (secrets not yet masked).
    pub live: Vec<Signal>,
    /// Requests just answered: to be looked at again once `BODY_GRACE` has passed.
    pub answered: Vec<RequestId>,
    /// The last request held by Fetch interception with no route to answer it: (id, URL).
    pub paused: Option<(FetchRequestId, String)>,
    /// Popups opened (their targets), for the session to adopt as tabs.
    pub popups: Vec<TargetId>,
}

/// Files a note of something the page did besides logging (a dialog, a download), live too.
pub fn note(store: &mut Store, record: Record, signal: Signal, now: Now, out: &mut Outbox) {
    out.live.push(signal);
    store.timeline.push(now.wall, record);
}
