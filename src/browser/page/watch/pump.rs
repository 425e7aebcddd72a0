//! The pump: one task per page that drains the page's CDP event streams (they are unbounded:
//! someone must always read them) and what its commands found, applies each to the reducer under
//! the store's lock, and carries out what the reducer asks — commands on the page's task set, live
//! events to subscribers (secrets masked), the navigation and network state to waiting methods.
//! It ends when the page's streams end (the page is gone) or the page handle stops it, and it
//! takes the page's tasks with it.

use std::collections::VecDeque;

use futures_util::stream::{BoxStream, SelectAll};
use futures_util::{FutureExt, StreamExt};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use super::commands::{Finding, Runner};
use super::events::PageEvent;
use super::nav::{NavState, NetState};
use super::reducer::{BODY_GRACE, Outbox, Reducer};
use super::store::SharedStore;
use super::views::live::LiveFeed;
use crate::browser::chromium::ids::{FetchRequestId, RequestId};

/// Where the pump publishes what waiting methods wait on.
pub struct Senders {
    pub nav: watch::Sender<NavState>,
    pub net: watch::Sender<NetState>,
    pub paused: watch::Sender<Option<(FetchRequestId, String)>>,
    /// How many findings (bodies, source lines, cause stacks) have been applied: what a reader
    /// waiting for one wakes on.
    pub found: watch::Sender<u64>,
}

pub struct Pump {
    pub reducer: Reducer,
    pub store: SharedStore,
    pub runner: Runner,
    pub senders: Senders,
    pub live: LiveFeed,
    /// Answered requests to look at again, with when.
    pub grace: VecDeque<(Instant, RequestId)>,
}

impl Pump {
    /// Drains `events` until every stream has ended (the page is gone). A message on `barriers`
    /// is answered once every event already delivered has been applied.
    pub async fn run(
        mut self,
        mut events: SelectAll<BoxStream<'static, PageEvent>>,
        mut barriers: mpsc::UnboundedReceiver<oneshot::Sender<()>>,
        mut findings: mpsc::UnboundedReceiver<Finding>,
    ) {
        loop {
            let due = self.grace.front().map(|(at, _)| *at);
            tokio::select! {
                event = events.next() => match event {
                    Some(event) => self.apply(event),
                    None => break,
                },
                Some(finding) = findings.recv() => self.found(finding),
                Some(done) = barriers.recv() => {
                    while let Some(Some(event)) = events.next().now_or_never() {
                        self.apply(event);
                    }
                    while let Ok(finding) = findings.try_recv() {
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

    fn apply(&mut self, event: PageEvent) {
        let mut out = Outbox::default();
        {
            let mut store = self.store.lock();
            self.reducer.apply(&mut store, event, &mut out);
            // Redacted and sent only when someone ever subscribed (the feed has no channel before).
            let events = std::mem::take(&mut out.live);
            if self.live.wanted() {
                for mut event in events {
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
        let now = Instant::now();
        while self.grace.front().is_some_and(|(at, _)| *at <= now) {
            let Some((_, id)) = self.grace.pop_front() else { break };
            let mut store = self.store.lock();
            self.reducer.grace_passed(&mut store, &id);
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
        self.publish_state();
    }

    fn publish_state(&mut self) {
        if let Some(nav) = self.reducer.nav_changed() {
            self.senders.nav.send_replace(nav.clone());
        }
        if let Some(net) = self.reducer.net_changed() {
            self.senders.net.send_replace(net.clone());
        }
    }
}
