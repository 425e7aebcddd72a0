//! The reducer: every page event, in order, folded into the page's state — the timeline (in the
//! store), the main frame's navigation state, the network activity, the downloads — and the
//! decisions it implies returned as [`Command`]s, never carried out here. No task, no lock, no I/O,
//! no clock: the pump hands it the store and the moment each event is applied ([`Now`]), and the
//! tests below drive it with plain calls.
//!
//! One sub-reducer per kind of thing a page does, each owning its state:
//!
//! - `requests`: requests from start to end, what is in flight, the egress proxy's failures
//! - `main_frame`: the main frame's documents — commits, milestones, its world, a crash
//! - `console`: console calls and page errors, with the source lines around them
//! - `prompts`: what the page waits on an answer for (dialogs, choosers, auth, held requests)
//! - `downloads`: the downloads a page began, cancelled past the size cap
//! - `popups`: popups, noted once both their announcements are in
//! - `sockets`: WebSockets and EventSource streams, their frames kept whole or counted
//! - `messages`, `storage`: the messages the window got from frames and windows; storage writes and reads
//! - `wire`: each hop's headers and cookies (the ExtraInfo events), paired with their hop
//! - `outbox`: what applying an event asks of the pump (commands, live signals, popups …)
//!
//! This file dispatches each event and orders what two share (a document cuts off older requests).

mod console;
mod downloads;
mod main_frame;
mod messages;
mod outbox;
mod popups;
mod prompts;
mod requests;
mod sockets;
mod storage;
mod wire;

use super::arms::Arm;
use super::cdp_events::PageEvent;
use super::clock::{Clock, Now};
use super::commands::{Command, Finding};
use super::nav::{NavState, NetState};
use super::records::Record;
use super::reorder::{Ordered, Reorder};
use super::store::Store;
use crate::browser::chromium::ids::{FrameId, LoaderId, RequestId};
use crate::browser::chromium::kinds::Milestone;
use crate::egress::failures::Failures;

pub use downloads::{Download, Env};
pub use outbox::Outbox;
pub use requests::BODY_GRACE;

pub struct Reducer {
    reorder: Reorder,
    clock: Clock,
    frame: main_frame::MainFrame,
    requests: requests::Requests,
    prompts: prompts::Prompts,
    downloads: downloads::Downloads,
    popups: popups::Popups,
    sockets: sockets::Sockets,
    storage: storage::Storage,
    wires: wire::Wires,
}

impl Reducer {
    /// The reducer of the page whose main frame is `main_frame`, opened `now`.
    pub fn new(main_frame: FrameId, env: Env, now: Now) -> Self {
        Self {
            reorder: Reorder::default(),
            clock: Clock::default(),
            frame: main_frame::MainFrame::new(main_frame),
            requests: requests::Requests::new(now),
            prompts: prompts::Prompts::default(),
            downloads: downloads::Downloads::new(env),
            popups: popups::Popups::default(),
            sockets: sockets::Sockets::default(),
            storage: storage::Storage::default(),
            wires: wire::Wires::default(),
        }
    }

    /// The navigation state, when it changed since the last call.
    pub fn nav_changed(&mut self) -> Option<&NavState> {
        self.frame.changed()
    }

    /// The network activity, when it changed since the last call.
    pub fn net_changed(&mut self) -> Option<&NetState> {
        self.requests.changed()
    }

    /// The downloads, when they changed since the last call.
    pub fn downloads_changed(&mut self) -> Option<&[Download]> {
        self.downloads.changed()
    }

    #[cfg(test)]
    pub fn nav(&self) -> &NavState {
        self.frame.state()
    }

    /// What the session's egress proxy failed to deliver so far (the pump hands over a new copy
    /// whenever the proxy recorded more).
    pub fn egress_failures(&mut self, failures: Failures) {
        self.requests.egress = failures;
    }

    /// Arms how the next dialog or file chooser is answered.
    pub fn arm(&mut self, arm: Arm) {
        self.prompts.arm(arm);
    }

    /// Applies one event as it arrived (events of a request are put back in order first).
    pub fn apply(&mut self, store: &mut Store, event: PageEvent, now: Now, out: &mut Outbox) {
        // Only the kind: events carry page data (posted bodies, console text) that is never logged.
        tracing::trace!(event = event.kind(), "page event");
        for ordered in self.reorder.arrive(event) {
            self.apply_ordered(store, ordered, now, out);
        }
    }

    fn apply_ordered(&mut self, store: &mut Store, ordered: Ordered, now: Now, out: &mut Outbox) {
        let Self { requests, frame, clock, wires, .. } = self;
        match ordered {
            Ordered::Started(PageEvent::RequestStarted(start)) => {
                let (id, started) = (start.request_id.clone(), start.timestamp);
                if let Some(seq) = requests.started(store, frame, clock, start, now, out) {
                    wires.hop(store, &id, seq, started);
                }
            }
            Ordered::Responded(event) => requests.responded(store, frame, clock, event, now, out),
            Ordered::Started(_) => {}
            Ordered::Settled { request_id } => requests.settled(&request_id, now),
            Ordered::Ended { request_id, ending, timestamp } => {
                let at = clock.wall(timestamp, now.wall);
                requests.ended(store, frame, &request_id, ending, at, out)
            }
            Ordered::Other(event) => self.apply_other(store, event, now, out),
        }
    }

    fn apply_other(&mut self, store: &mut Store, event: PageEvent, now: Now, out: &mut Outbox) {
        match event {
            PageEvent::Lifecycle { frame_id, loader_id, milestone, timestamp } if self.frame.is_main(&frame_id) => {
                self.lifecycle(store, &loader_id, milestone, timestamp, now)
            }
            event @ (PageEvent::WorldCreated { .. }
            | PageEvent::FrameNavigated { .. }
            | PageEvent::NavigationRequested { .. }
            | PageEvent::Crashed) => self.frame.apply(store, event, now, out),
            event @ (PageEvent::Console { .. } | PageEvent::Exception { .. }) => console::apply(store, event, now, out),
            event @ (PageEvent::RequestPaused { .. }
            | PageEvent::FileChooserOpened { .. }
            | PageEvent::AuthRequired { .. }
            | PageEvent::DialogOpening { .. }) => self.prompts.apply(store, event, now, out),
            event @ (PageEvent::DownloadBegun { .. } | PageEvent::DownloadProgress { .. }) => {
                self.downloads.apply(store, event, now, out)
            }
            event @ (PageEvent::PopupOpened { .. } | PageEvent::WindowOpened { .. }) => {
                self.popups.apply(store, event, now, out)
            }
            PageEvent::ScriptParsed { script_id, url } if !url.is_empty() => store.script_parsed(script_id, url),
            PageEvent::Socket(event) => self.sockets.apply(store, &mut self.clock, event, now),
            PageEvent::Storage(event) => self.storage.apply(store, event, now.wall),
            PageEvent::Wire(event) => self.wires.apply(store, event),
            PageEvent::DomChanged(report) => {
                for change in report.changes {
                    store.timeline.push_dom(change);
                }
                let document = store.timeline.generation();
                for kept in report.kept {
                    store.kept.push(document, kept);
                }
                for field in report.fields {
                    store.inputs.push(field);
                }
                for note in report.events {
                    store.timeline.push(note.at, Record::Dispatched(note));
                }
                for note in report.reached {
                    store.input_reached(note);
                }
                report.messages.into_iter().for_each(|seen| messages::apply(store, seen));
            }
            PageEvent::DomCause { id, stack_id } => {
                let document = store.timeline.generation();
                store.causes.announced(document, id, now.wall);
                out.commands.push(Command::FetchCause { document, id, stack_id });
            }
            _ => {}
        }
    }

    /// A main-frame lifecycle event (`timestamp`: CDP monotonic seconds). A document's first event
    /// commits it, which cuts off the requests of the documents before it.
    fn lifecycle(&mut self, store: &mut Store, loader: &LoaderId, milestone: Milestone, timestamp: f64, now: Now) {
        let next_in_flight = self.requests.is_in_flight(&self.frame.state().last_document_request);
        if self.frame.left_behind(loader, &milestone, next_in_flight) {
            return;
        }
        if self.frame.commit(loader) {
            // The document's own request (Chromium gives it the loader's id) dates the document.
            let started = self.requests.started_at(store, &loader.document_request());
            store.timeline.document_started(started.unwrap_or(now.wall));
            self.requests.cut_off(store, loader, &mut self.reorder, now);
            self.sockets.document_left(store, now);
        }
        let at = self.clock.wall(timestamp, now.wall);
        self.frame.milestone(store, milestone, at);
    }

    /// [`BODY_GRACE`] has passed since `id` was answered (see `requests`).
    pub fn grace_passed(&mut self, store: &mut Store, id: &RequestId, now: Now) {
        self.requests.grace_passed(store, id, now);
    }

    /// Files what a command learned.
    pub fn found(&mut self, store: &mut Store, finding: Finding) {
        match finding {
            Finding::Body { request_id, body } => self.requests.found_body(store, &request_id, body),
            Finding::PostData { request_id, text } => self.requests.found_post_data(store, &request_id, text),
            Finding::Cause { document, id, stack } => store.causes.resolved(document, id, stack),
            Finding::Source { seq, at, text } => console::found_source(store, seq, &at, text),
        }
    }
}

#[cfg(test)]
mod tests;
