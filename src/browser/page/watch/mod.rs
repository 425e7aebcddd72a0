//! Watching a page: every CDP event it sends, parsed once, reduced into one timeline, and read
//! through views.
//!
//! - `cdp_events/`: CDP JSON → [`PageEvent`], leniently, its vocabularies parsed into the enums of
//!   `chromium::kinds` (resource types, milestones, download states, dialog kinds, console methods)
//! - `reorder`: a request's events put back in order (CDP delivers each type on its own channel)
//! - `clock`: monotonic and wall times as one clock
//! - `reducer/`: events → state (timeline, navigation, network, downloads) and [`Command`]s, by one
//!   sub-reducer per kind of thing a page does; no I/O, no lock, no clock
//! - `commands`: the commands run on the page's own task set, their findings sent back
//! - `pauses/`: the task answering the Debugger's pauses (Web Storage calls: their line, key and
//!   found or `null`; every other pause resumed at once)
//! - `pump`: the task that drives it all, and the one that reads the clock and touches what the
//!   session shares (its egress failures, its popups)
//! - `records`, `timeline`, `store`: what is kept, bounded in entries and bytes; `notes`: the
//!   typed notes of dialogs, downloads, popups, actions, and the signals live subscribers get; `bodies`,
//!   `sources`: captured response bodies and script sources; `shape`: a JSON body's outline in a
//!   line (the session's secrets are masked on the way out by `browser::redact`, whose handle
//!   the store holds)
//! - `nav`: the navigation and network state waiting methods subscribe to
//! - `dom`: the DOM watcher's changes and its notes on the user's input (`js/dom_watch.js`);
//!   `kept`: states a script set to what they were; `inputs`: what the session put into fields;
//!   `facts`: out of order, sent twice, serial chains, stale values
//! - `exchanged`: the typed notes of what a page exchanged besides requests (sockets, streams);
//!   `wire`: a request hop's headers and cookies (sent, withheld, set), values never kept
//! - `stacks`: stack traces with their async parents; `causes`: the stacks behind the DOM
//!   watcher's cause ids (who made a change; how that reads is `views::reactions`)
//! - `origin`: a URL's origin, and URLs shown relative to one
//! - `arms`: how the next dialog and file chooser are answered
//! - `views/`: what each answer shows (logs, network, HAR, effects, timeline lines, live feed), and
//!   the only place records and notes are put into words
//!
//! [`Watch`] is the page handle's side of it.

pub mod arms;
pub mod bodies;
pub mod causes;
pub mod cdp_events;
mod clock;
mod commands;
pub mod dom;
pub mod exchanged;
pub mod facts;
pub mod inputs;
pub mod kept;
pub mod nav;
pub mod notes;
pub mod origin;
pub mod pauses;
mod pump;
pub mod records;
mod reducer;
mod reorder;
mod shape;
pub mod sources;
pub mod stacks;
pub mod store;
pub mod timeline;
pub mod views;
pub mod wire;

use futures_util::stream::{BoxStream, SelectAll};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::browser::chromium::ids::{FetchRequestId, FrameId};

pub use arms::{Arm, ChooserArm, DialogArm, MAX_ARM};
pub use cdp_events::PageEvent;
pub use clock::now_ms;
pub use commands::Command;
pub use nav::{DocumentFailure, NavMarks, NavState, NetState};
pub use pump::Shared;
pub use reducer::{Download, Env};
pub use store::{SharedStore, Store};
pub use views::live::{LiveEvent, LiveFeed};

use clock::Now;
use commands::Runner;
use pump::{Inputs, Pump, Senders};
use reducer::Reducer;

/// The page handle's side of the watch: the state waiting methods subscribe to, the store the
/// views read, the arms and routes the page sets, and the page's task set.
pub struct Watch {
    pub nav: watch::Receiver<NavState>,
    pub net: watch::Receiver<NetState>,
    /// The last request held by Fetch interception with no route to answer it: (request id, URL).
    pub paused: watch::Receiver<Option<(FetchRequestId, String)>>,
    /// Bumped whenever the pump has applied a finding (a body, source lines, a cause's stack).
    pub found: watch::Receiver<u64>,
    /// The downloads the page began, oldest first.
    pub downloads: watch::Receiver<Vec<Download>>,
    pub store: SharedStore,
    live: LiveFeed,
    arms: mpsc::UnboundedSender<Arm>,
    runner: Runner,
    barrier: mpsc::UnboundedSender<oneshot::Sender<()>>,
    stop: CancellationToken,
}

impl Watch {
    /// Starts watching `page` (whose main frame is `main_frame`) through `events`, within the
    /// session's limits (`env`) and with what its tabs share (`shared`); the pump's task is
    /// returned for the handle to stop.
    pub fn start(
        page: chromiumoxide::Page,
        main_frame: FrameId,
        env: Env,
        shared: Shared,
        events: SelectAll<BoxStream<'static, PageEvent>>,
    ) -> (Self, JoinHandle<()>) {
        let now = Now::read();
        let (nav_tx, nav) = watch::channel(NavState::default());
        let (net_tx, net) = watch::channel(NetState { in_flight: 0, last_activity: now.instant });
        let (paused_tx, paused) = watch::channel(None);
        let (found_tx, found) = watch::channel(0);
        let (downloads_tx, downloads) = watch::channel(Vec::new());
        let store = SharedStore::new(Store::new(now.wall));
        let (findings_tx, findings) = mpsc::unbounded_channel();
        let (barrier, barriers) = mpsc::unbounded_channel();
        let (arms, arms_rx) = mpsc::unbounded_channel();
        let stop = CancellationToken::new();
        let runner = Runner::new(page, main_frame.clone(), store.clone(), nav.clone(), findings_tx, stop.clone());
        let live = LiveFeed::default();
        let pump = Pump {
            reducer: Reducer::new(main_frame, env, now),
            store: store.clone(),
            runner: runner.clone(),
            senders: Senders { nav: nav_tx, net: net_tx, paused: paused_tx, found: found_tx, downloads: downloads_tx },
            live: live.clone(),
            shared,
            egress_seen: 0,
            grace: Default::default(),
        };
        let task = tokio::spawn(pump.run(events, Inputs { barriers, findings, arms: arms_rx }));
        (Self { nav, net, paused, found, downloads, store, live, arms, runner, barrier, stop }, task)
    }

    /// Arms how the page's next dialog or file chooser is answered: applied before any event
    /// that comes after this call.
    pub fn arm(&self, arm: Arm) {
        let _ = self.arms.send(arm);
    }

    /// The store, locked (briefly: the pump waits meanwhile).
    pub fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store.lock()
    }

    /// A new subscription to what the page does from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<LiveEvent> {
        self.live.subscribe()
    }

    /// Runs a command on the page's task set (clean-up nobody waits for).
    pub fn run(&self, command: Command) {
        self.runner.run(command);
    }

    /// Returns once the pump has applied every event delivered to it so far (or at `deadline`).
    pub async fn applied(&self, deadline: Instant) {
        let (done, applied) = oneshot::channel();
        if self.barrier.send(done).is_ok() {
            let _ = tokio::time::timeout_at(deadline, applied).await;
        }
    }

    /// Stops the page's tasks (the page is going).
    pub fn stop(&self) {
        self.stop.cancel();
    }
}
