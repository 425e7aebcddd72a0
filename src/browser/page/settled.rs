//! What the page's watch holds, read once everything the page sent before now is applied: one
//! [`Settled`] view per call (`Page::settled`), or as things are (`Page::seen`, after a call that
//! has just settled, such as `page.goto`'s arrival). Each reader waits (briefly) for what is still
//! being fetched for it — bodies, source lines, a cause's stack — then reads its view of the
//! timeline (`watch::views`): `page.timeline`'s lines, `logs.pull`, `network.pull`,
//! `network.body`, `network.har`, the downloads, the load breakdown, the signal counts.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use tokio::time::Instant;

use super::handle::Page;
use super::watch::Download;
use super::watch::Store;
use super::watch::facts::{self, Span};
use super::watch::now_ms;
use super::watch::origin::{origin_of, relative_in};
use super::watch::records::{DomRecord, Record};
use super::watch::views::lines::{self, EntryKind, Lines, Since};
use super::watch::views::logs::{self, Logs};
use super::watch::views::network::{self, NetworkPull, NetworkQuery, WholeBody, mime_of};
use super::watch::views::{self, SignalCounts, har, messages, sockets, storage};
use crate::browser::chromium::kinds::{DownloadState, Level, Milestone};
use crate::browser::error::BrowserError;

/// How long a reader waits for bodies and source lines still being fetched.
const FETCH_WAIT: Duration = Duration::from_secs(1);

/// What `page.timeline` returns.
pub type TimelineView = Lines;

/// The page's watch, read (see the module doc).
pub struct Settled<'a> {
    page: &'a Page,
}

impl Page {
    /// The page's timeline and navigation state once every event Chromium sent before now is
    /// applied (see [`crate::browser::page::core::Core::settle_events`]); with `dom`, the DOM
    /// watcher's held changes are taken into the timeline first.
    pub async fn settled(&self, dom: bool, deadline: Instant) -> Settled<'_> {
        if dom {
            self.look(None, deadline).await;
        }
        self.settle_events(deadline).await;
        self.seen()
    }

    /// The page's timeline and navigation state as applied so far, without waiting.
    pub fn seen(&self) -> Settled<'_> {
        Settled { page: self }
    }
}

impl Settled<'_> {
    /// New error entries waiting since the last pulls.
    pub fn signal_counts(&self) -> SignalCounts {
        views::signal_counts(&self.page.watch().store())
    }

    /// Now, in ms since the current document started loading.
    pub fn document_time(&self) -> i64 {
        let origin = self.page.watch().store().timeline.current_origin();
        (now_ms() - origin).round() as i64
    }

    /// `page.timeline`: the timeline as compact lines with the facts derived from it
    /// (`watch::views::lines`); read after the DOM watcher's held changes are taken and the stacks
    /// of their causes fetched (a change's line names who made it).
    pub async fn timeline(
        &self,
        (since, kinds): (Since, &[EntryKind]),
        url_contains: Option<&str>,
        max_chars: usize,
        deadline: Instant,
    ) -> TimelineView {
        wait_for_fetches(self.page, deadline, |s| !s.causes.pending_since(0.0)).await;
        let page_url = self.page.watch().nav.borrow().url.clone();
        let places = self.page.places_since(0, deadline).await;
        lines::render(&self.page.watch().store(), since, kinds, url_contains, (&page_url, &places), max_chars)
    }

    /// The HAR 1.2 log of the page's requests (see `watch::views::har`); with `bodies`, their
    /// captured body excerpts. Nothing is drained.
    pub async fn har(&self, bodies: bool, deadline: Instant) -> Value {
        if bodies {
            wait_for_fetches(self.page, deadline, |s| !bodies_pending(s, 0)).await;
        }
        let places = self.page.places_since(0, deadline).await;
        har::log(&self.page.watch().store(), bodies, &places)
    }

    /// Console messages, page errors and notes since the last pull (console entries at `level` and
    /// above), at most one pull's budget of them.
    pub async fn logs(&self, level: Level, deadline: Instant) -> Logs {
        wait_for_fetches(self.page, deadline, |s| !sources_pending(s, s.timeline.logs_cursor())).await;
        let cursor = self.page.watch().store().timeline.logs_cursor();
        let places = self.page.places_since(cursor, deadline).await;
        logs::pull(&mut self.page.watch().store(), level, &places)
    }

    /// The answered requests `query` selects that no pull returned yet (others stay for a later
    /// pull), after giving bodies still being captured a moment to arrive; and those in flight.
    pub async fn network(&self, query: &NetworkQuery, deadline: Instant) -> NetworkPull {
        wait_for_fetches(self.page, deadline, |s| !bodies_pending(s, 0) && !answers_settling(s)).await;
        let places = self.page.places_since(0, deadline).await;
        network::pull(&mut self.page.watch().store(), query, now_ms(), &places)
    }

    /// The whole captured response body of `request_id` (whether it was cut at the cap, and the
    /// headers of the hop that brought it).
    pub async fn body(&self, request_id: &str, deadline: Instant) -> Result<WholeBody, String> {
        wait_for_fetches(self.page, deadline, |s| !bodies_pending(s, 0)).await;
        network::whole_body(&self.page.watch().store(), request_id)
    }

    /// The downloads this page began, oldest first.
    pub fn downloads(&self) -> Vec<DownloadView> {
        let all = self.page.watch().downloads.borrow().clone();
        let store = self.page.watch().store();
        all.into_iter()
            .map(|d: Download| {
                // The response's own type; failing that (Chromium took the download over before its
                // answer was reported), the one its file name implies.
                let mime = mime_of(&store, &d.url).unwrap_or_else(|| {
                    mime_guess::from_path(&d.name).first().map(|m| m.essence_str().to_owned()).unwrap_or_default()
                });
                DownloadView { name: d.name, url: d.url, bytes: d.bytes, mime, state: d.state }
            })
            .collect()
    }

    /// The newest finished download named `name`: its bytes, at most `cap` of them.
    pub fn read_download(&self, name: &str, cap: usize) -> Result<Vec<u8>, BrowserError> {
        let all = self.page.watch().downloads.borrow().clone();
        let Some(download) = all.iter().rev().find(|d| d.name == name) else {
            let names: Vec<&str> = all.iter().map(|d| d.name.as_str()).collect();
            return Err(BrowserError::InvalidParam {
                param: "name".into(),
                message: format!("no download named {name:?} in this session (it has: {names:?})"),
            });
        };
        match (&download.state, download.over_cap) {
            (DownloadState::Completed, _) => {}
            (DownloadState::Canceled, true) => {
                return Err(BrowserError::DownloadCanceled(format!(
                    "{name} was cancelled at {} bytes: it grew past DOWNLOAD_MAX_BYTES, so there is no file to read",
                    download.bytes
                )));
            }
            (DownloadState::Canceled, false) => {
                return Err(BrowserError::DownloadCanceled(format!(
                    "{name} was cancelled before it finished (by the page or the server), so there is no file to read"
                )));
            }
            (state, _) => {
                return Err(BrowserError::DownloadPending(format!(
                    "{name} is {state} ({} bytes so far): downloads.list shows when it is completed",
                    download.bytes
                )));
            }
        }
        if download.bytes as usize > cap {
            return Err(BrowserError::InvalidParam {
                param: "name".into(),
                message: format!("{name} is {} bytes, over the {cap}-byte limit of downloads.read", download.bytes),
            });
        }
        std::fs::read(self.page.downloads_dir().join(&download.guid))
            .map_err(|e| BrowserError::Unavailable(format!("cannot read the download {name}: {e}")))
    }

    /// How the current document loaded, as the timeline has it: read it after the page arrived
    /// (`Page::arrived`), which files what the page has reported until then; its messages'
    /// listeners named with where they are.
    pub async fn load(&self, deadline: Instant) -> Load {
        let places = super::code::load_places(self.page, deadline).await;
        let origin = origin_of(&self.page.watch().nav.borrow().url);
        let store = self.page.watch().store();
        let timeline = &store.timeline;
        let start = timeline.current_origin();
        let ms = |at: f64| (at - start).round() as i64;
        let mut load = Load::default();
        let mut spans: Vec<Span> = Vec::new();
        let mut doms: Vec<&DomRecord> = Vec::new();
        for entry in timeline.iter().filter(|e| e.at >= start - 1.0) {
            match &entry.record {
                Record::Milestone(Milestone::DomContentLoaded) if load.dom_content_loaded_ms.is_none() => {
                    load.dom_content_loaded_ms = Some(ms(entry.at))
                }
                Record::Milestone(Milestone::Load) if load.load_ms.is_none() => load.load_ms = Some(ms(entry.at)),
                Record::Request(r) if !r.is_noise() => {
                    spans.push(Span { request: r, start: entry.at, end: r.done_at() })
                }
                Record::Dom(dom) => doms.push(dom),
                _ => {}
            }
        }
        load.requests = spans.len() as u64;
        load.pending = spans.iter().filter(|s| s.end.is_none()).count() as u64;
        if load.pending == 0 {
            load.network_quiet_ms = spans
                .iter()
                .filter_map(|s| s.end)
                .fold(None, |a: Option<f64>, e| Some(a.map_or(e, |a| a.max(e))))
                .map(ms);
        }
        load.content_settled_ms =
            doms.iter().map(|d| d.last_at()).fold(None, |a: Option<f64>, e| Some(a.map_or(e, |a| a.max(e)))).map(ms);
        let chains = facts::chains(&spans);
        load.longest_chain = chains.first().map(|c| relative_in(&c.line(), &origin));
        load.facts = facts::out_of_order(&spans, &doms, &store.causes, start);
        load.facts.extend(chains.iter().skip(1).map(|c| relative_in(&c.line(), &origin)));
        let document = || timeline.iter().filter(|e| e.at >= start - 1.0);
        load.facts.extend(sockets::facts(&store, document(), &origin));
        (load.sockets, load.more_sockets) = sockets::lines(&store, document(), &origin, start);
        let (message_lines, more, message_facts) = messages::lines(&store, document(), (&origin, start), &places);
        (load.messages, load.more_messages) = (message_lines, more);
        load.facts.extend(message_facts);
        let (storage_lines, more, storage_facts) = storage::lines(&store, document(), start, &places);
        (load.storage, load.more_storage) = (storage_lines, more);
        load.facts.extend(storage_facts);
        load
    }
}

/// Waits (briefly) until `ready` holds for the store, for data still being fetched: woken by each
/// finding the pump applies, so a stack or body that arrives in a millisecond costs one.
pub(super) async fn wait_for_fetches(page: &Page, deadline: Instant, ready: impl Fn(&Store) -> bool) {
    let until = (Instant::now() + FETCH_WAIT).min(deadline);
    let mut found = page.watch().found.clone();
    loop {
        found.borrow_and_update();
        if ready(&page.watch().store()) {
            return;
        }
        if Instant::now() >= until {
            return;
        }
        // An event (not a finding) may settle it too: look again every 10 ms regardless.
        let look_again = (Instant::now() + Duration::from_millis(10)).min(until);
        tokio::select! {
            changed = found.changed() => if changed.is_err() { return },
            _ = tokio::time::sleep_until(look_again) => {}
        }
    }
}

/// True while a body of a request after `since` is still being captured.
pub(super) fn bodies_pending(store: &Store, since: u64) -> bool {
    store.timeline.since(since).any(|e| matches!(&e.record, Record::Request(r) if r.body_pending))
}

/// True while a request is answered and its body neither finished nor given up (for at most the
/// reducer's grace).
fn answers_settling(store: &Store) -> bool {
    store.timeline.iter().any(|e| matches!(&e.record, Record::Request(r) if r.response.is_some() && !r.is_settled() && !r.resource_type.is_long_lived()))
}

/// True while a source excerpt of an entry after `since` is still being fetched.
pub(super) fn sources_pending(store: &Store, since: u64) -> bool {
    store.timeline.since(since).any(|e| match &e.record {
        Record::Console(c) => c.source_pending,
        Record::PageError(p) => p.source_pending,
        _ => false,
    })
}

/// A download as `downloads.list` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct DownloadView {
    pub name: String,
    pub url: String,
    pub bytes: u64,
    /// The response's content type, or failing that the one the file name implies ("" when neither
    /// says).
    pub mime: String,
    pub state: DownloadState,
}

/// How the current document loaded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Load {
    /// DOMContentLoaded, ms after the navigation started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dom_content_loaded_ms: Option<i64>,
    /// The load event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_ms: Option<i64>,
    /// When the last of its requests ended (absent while some are still in flight).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_quiet_ms: Option<i64>,
    /// When its content last changed before this answer (the DOM watcher's last change).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_settled_ms: Option<i64>,
    /// Requests the document made (the browser's own left out).
    pub requests: u64,
    /// Requests still in flight.
    #[serde(skip_serializing_if = "is_zero")]
    pub pending: u64,
    /// The longest run of requests from one script location, each awaited before the next.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest_chain: Option<String>,
    /// What the service derived from the requests' times (out of order, one after another), its sockets' frames and messages.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<String>,
    /// What its sockets and streams did, ms after the navigation started: opened, frames, errors.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sockets: Vec<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub more_sockets: u64,
    /// Messages the window got from frames and windows, and what their listeners started.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub more_messages: u64,
    /// Web Storage writes and getItem reads with their lines, ms after the navigation started.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub storage: Vec<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub more_storage: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
