//! The pump: one task per page that drains the page's CDP event streams (they are unbounded:
//! someone must always read them), what its commands found and the arms the page handle sent,
//! applies each to the reducer under the store's lock — with the moment it applies it, read here
//! once — and carries out what the reducer asks: commands on the page's task set, live events to
//! subscribers (secrets masked), the navigation, network and download state to waiting methods,
//! popups to the session. It ends when the page's streams end (the page is gone) or the page
//! handle stops it, and it takes the page's tasks with it.
//!
//! What the session shares with the page — its egress proxy's failure log, its popups waiting to
//! be adopted — is the pump's to read and write, never the reducer's, and never under the store's
//! lock: the reducer gets its own copy of the failures whenever the proxy recorded more.

use std::collections::VecDeque;
use std::sync::Arc;

use futures_util::stream::{BoxStream, SelectAll};
use futures_util::{FutureExt, StreamExt};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use super::arms::Arm;
use super::cdp_events::PageEvent;
use super::clock::Now;
use super::commands::{Finding, Runner};
use super::nav::{NavState, NetState};
use super::reducer::{BODY_GRACE, Download, Outbox, Reducer};
use super::store::SharedStore;
use super::views::live::{LiveEvent, LiveFeed};
use crate::browser::chromium::ids::{FetchRequestId, RequestId};
use crate::browser::page::adoption::PopupLog;
use crate::egress::failures::FailureLog;

/// Where the pump publishes what waiting methods wait on.
pub struct Senders {
    pub nav: watch::Sender<NavState>,
    pub net: watch::Sender<NetState>,
    pub paused: watch::Sender<Option<(FetchRequestId, String)>>,
    /// How many findings (bodies, source lines, cause stacks) have been applied: what a reader
    /// waiting for one wakes on.
    pub found: watch::Sender<u64>,
    pub downloads: watch::Sender<Vec<Download>>,
}

/// What the page's session shares with it: read and written by the pump only.
#[derive(Clone, Default)]
pub struct Shared {
    /// What the session's egress proxy failed to deliver, and why.
    pub egress: Arc<FailureLog>,
    /// The session's popups waiting to be adopted as tabs.
    pub popups: PopupLog,
}

/// What the pump takes in besides the page's events.
pub struct Inputs {
    pub barriers: mpsc::UnboundedReceiver<oneshot::Sender<()>>,
    pub findings: mpsc::UnboundedReceiver<Finding>,
    pub arms: mpsc::UnboundedReceiver<Arm>,
}

pub struct Pump {
    pub reducer: Reducer,
    pub store: SharedStore,
    pub runner: Runner,
    pub senders: Senders,
    pub live: LiveFeed,
    pub shared: Shared,
    /// The egress log's version the reducer's copy is of.
    pub egress_seen: u64,
    /// Answered requests to look at again, with when.
    pub grace: VecDeque<(Instant, RequestId)>,
}

impl Pump {
    /// Drains `events` until every stream has ended (the page is gone). A message on
    /// `inputs.barriers` is answered once every event already delivered has been applied.
    pub async fn run(mut self, mut events: SelectAll<BoxStream<'static, PageEvent>>, mut inputs: Inputs) {
        loop {
            let due = self.grace.front().map(|(at, _)| *at);
            tokio::select! {
                event = events.next() => match event {
                    Some(event) => self.apply(event, &mut inputs.arms),
                    None => break,
                },
                Some(finding) = inputs.findings.recv() => self.found(finding),
                Some(arm) = inputs.arms.recv() => self.reducer.arm(arm),
                Some(done) = inputs.barriers.recv() => {
                    while let Some(Some(event)) = events.next().now_or_never() {
                        self.apply(event, &mut inputs.arms);
                    }
                    while let Ok(finding) = inputs.findings.try_recv() {
                        self.found(finding);
                    }
                    let _ = done.send(());
                }
                _ = tokio::time::sleep_until(due.unwrap_or_else(Instant::now)), if due.is_some() => {
                    self.grace_passed();
                }
            }
        }
        self.runner.shut_down().await;
    }

    /// Applies one event, after every arm the page handle sent before it (an arm sent before an
    /// action is in the channel before any event the action causes).
    fn apply(&mut self, event: PageEvent, arms: &mut mpsc::UnboundedReceiver<Arm>) {
        while let Ok(arm) = arms.try_recv() {
            self.reducer.arm(arm);
        }
        if let Some((version, failures)) = self.shared.egress.newer_than(self.egress_seen) {
            self.egress_seen = version;
            self.reducer.egress_failures(failures);
        }
        let now = Now::read();
        let mut out = Outbox::default();
        {
            let mut store = self.store.lock();
            self.reducer.apply(&mut store, event, now, &mut out);
            // Worded, redacted and sent only when someone ever subscribed (the feed has no channel
            // before).
            let signals = std::mem::take(&mut out.live);
            if self.live.wanted() {
                for signal in signals {
                    let mut event = LiveEvent::of(signal, now.wall as u64);
                    event.text = store.redactor.text(&event.text);
                    event.url = event.url.map(|url| store.redactor.text(&url));
                    self.live.publish(event);
                }
            }
        }
        self.carry_out(out);
    }

    fn found(&mut self, finding: Finding) {
        {
            let mut store = self.store.lock();
            self.reducer.found(&mut store, finding);
        }
        self.senders.found.send_modify(|count| *count += 1);
        self.publish_state();
    }

    fn grace_passed(&mut self) {
        let now = Now::read();
        while self.grace.front().is_some_and(|(at, _)| *at <= now.instant) {
            let Some((_, id)) = self.grace.pop_front() else { break };
            let mut store = self.store.lock();
            self.reducer.grace_passed(&mut store, &id, now);
        }
        self.publish_state();
    }

    fn carry_out(&mut self, out: Outbox) {
        for command in out.commands {
            self.runner.run(command);
        }
        let at = Instant::now() + BODY_GRACE;
        self.grace.extend(out.answered.into_iter().map(|id| (at, id)));
        if let Some(paused) = out.paused {
            self.senders.paused.send_replace(Some(paused));
        }
        for target in out.popups {
            self.shared.popups.opened(target.into());
        }
        self.publish_state();
    }

    fn publish_state(&mut self) {
        if let Some(nav) = self.reducer.nav_changed() {
            self.senders.nav.send_replace(nav.clone());
        }
        if let Some(net) = self.reducer.net_changed() {
            self.senders.net.send_replace(net.clone());
        }
        if let Some(downloads) = self.reducer.downloads_changed() {
            self.senders.downloads.send_replace(downloads.to_vec());
        }
    }
}
