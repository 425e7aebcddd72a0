//! Navigating and waiting: `page.goto`, `page.reload`, `page.back`/`page.forward`, `page.waitFor`
//! on load states, and where the page is (`Landed`).
//!
//! A navigation is finished when its document (or one that replaced it, such as a JS redirect
//! before load) reaches the requested state; it fails when its document request fails (a
//! cancelled one is [`Unloaded::Cancelled`], which an action's follow treats as staying).
//! `networkidle` means no request in flight for 500 ms, tracked by the page's pump.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::time::Instant;

use super::core::{crashed, page_gone};
use super::handle::Page;
use super::locate::scripts::Navigate;
use super::watch::views::network::pending_urls;
use super::watch::{DocumentFailure, NavState};
use crate::browser::chromium::ids::RequestId;
use crate::browser::chromium::protocol::page::{GetNavigationHistory, NavigateToHistoryEntry, Reload, StopLoading};
use crate::browser::chromium::protocol::runtime::Evaluate;
use crate::browser::error::{BrowserError, Refusal};

/// How long `page.back` / `page.forward` wait for the history navigation to show.
const HISTORY_START: Duration = Duration::from_secs(2);

/// How long `page.goto` waits for a refresh of a second or less to start after its document loaded.
const REFRESH_START: Duration = Duration::from_secs(5);

/// How long the network must be quiet for `networkidle`.
pub const NETWORK_IDLE_QUIET: Duration = Duration::from_millis(500);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WaitUntil {
    Load,
    #[serde(rename = "domcontentloaded")]
    DomContentLoaded,
    #[default]
    NetworkIdle,
}

impl WaitUntil {
    fn reached(self, nav: &NavState) -> bool {
        match self {
            Self::DomContentLoaded => nav.dom_content_loaded,
            Self::Load | Self::NetworkIdle => nav.loaded,
        }
    }
    fn as_str(self) -> &'static str {
        match self {
            Self::Load => "load",
            Self::DomContentLoaded => "domcontentloaded",
            Self::NetworkIdle => "networkidle",
        }
    }
}

/// Where the page ended up.
#[derive(Debug, Clone, PartialEq)]
pub struct Landed {
    pub url: String,
    pub title: String,
    /// HTTP status of the main document, when it came from the network.
    pub status: Option<u16>,
    /// Where the document was scrolled to when it was looked at on arrival (CSS pixels, x and y);
    /// none at the top, or when it was not looked at. After a reload or a history move it is the
    /// position the browser restored.
    pub scrolled: Option<(f64, f64)>,
}

/// Why a document did not load.
#[derive(Debug)]
pub enum Unloaded {
    /// Its request was cancelled (a download, a 204, a refused beforeunload): the page stays.
    Cancelled(String),
    /// It failed, was refused, timed out, or the page went: the error to answer with.
    Failed(BrowserError),
}

impl From<Unloaded> for BrowserError {
    fn from(unloaded: Unloaded) -> Self {
        match unloaded {
            Unloaded::Cancelled(reason) => BrowserError::NavigationFailed { url: String::new(), reason },
            Unloaded::Failed(err) => err,
        }
    }
}

impl From<BrowserError> for Unloaded {
    fn from(err: BrowserError) -> Self {
        Unloaded::Failed(err)
    }
}

/// Navigating the page and waiting for its loads (see the module doc): `page.nav()`.
#[derive(Clone, Copy)]
pub struct Navigation<'a> {
    page: &'a Page,
}

impl Page {
    /// Navigating this page and waiting for its loads.
    pub fn nav(&self) -> Navigation<'_> {
        Navigation { page: self }
    }
}

impl<'a> Navigation<'a> {
    pub async fn goto(self, url: &str, wait_until: WaitUntil, deadline: Instant) -> Result<Landed, BrowserError> {
        let what = format!("page.goto({})", crate::quote::clip(url));
        self.page.follow_storage(true, deadline).await;
        let (current_url, requests_before) = {
            let nav = self.page.watch().nav.borrow();
            (nav.url.clone(), nav.document_requests)
        };
        match self.page.locate().call(Navigate, &[json!(url)], deadline).await {
            // The document went before the call could answer (a beforeunload dialog the pump
            // accepted, a loaded machine): the navigation asked for is under way.
            Err(err) if left_before_answering(&err) => {}
            other => {
                other?;
            }
        }
        if is_same_document(&current_url, url) {
            return self.arrived(deadline).await;
        }
        // Our navigation is the first main-frame document request after the call; its request
        // id is the loader id of the document it becomes.
        let Some(loader) = document_request(self.page, |n| n.document_requests > requests_before, deadline).await?
        else {
            return Err(BrowserError::Timeout(format!("{what} timed out before the request started")));
        };
        let waited = wait_for_document(self.page, Document::Loader(loader.as_str()), wait_until, deadline, &what).await;
        waited.map_err(|err| match BrowserError::from(err) {
            BrowserError::NavigationFailed { reason, .. } => {
                BrowserError::NavigationFailed { url: url.to_owned(), reason }
            }
            other => other,
        })?;
        let (mut landed, refresh) = arrival(self.page, deadline).await?;
        if refresh || self.page.watch().nav.borrow().refreshing.as_ref().is_some_and(|r| *r == loader.as_str()) {
            landed = follow_refresh(self.page, loader.as_str(), wait_until, deadline, &what).await?.unwrap_or(landed);
        }
        if let Some(refused) = refused_follow_up(self.page, loader.as_str(), &what) {
            return Err(refused);
        }
        Ok(landed)
    }

    pub async fn reload(self, wait_until: WaitUntil, deadline: Instant) -> Result<Landed, BrowserError> {
        self.page.follow_storage(true, deadline).await;
        let before = self.page.watch().nav.borrow().loader_id.clone();
        self.page.send(Reload {}, deadline).await?;
        wait_for_document(self.page, Document::NewerThan(before.as_str()), wait_until, deadline, "page.reload").await?;
        self.arrived(deadline).await
    }

    /// Goes `step` entries back (-1) or forward (+1) in the session's history, like the browser's
    /// buttons, and waits for the page it lands on to load. `None` when there is no such entry.
    pub async fn go_history(self, step: i64, deadline: Instant) -> Result<Option<Landed>, BrowserError> {
        self.page.follow_storage(true, deadline).await;
        let history = self.page.send(GetNavigationHistory {}, deadline).await?;
        let Some(entry) = usize::try_from(history.current_index + step).ok().and_then(|i| history.entries.get(i))
        else {
            return Ok(None);
        };
        let wanted = entry.url.clone();
        let documents_before = self.page.watch().nav.borrow().marks().documents;
        self.page.send(NavigateToHistoryEntry { entry_id: entry.id }, deadline).await?;
        // A cross-document entry starts a document request; an entry of the same document
        // (pushState, a fragment) only changes the URL. Whichever comes first says which.
        let give_up = (Instant::now() + HISTORY_START).min(deadline);
        loop {
            // Read the page first, then let the pump catch up: a document the page already shows
            // has had its request counted by then.
            let landed = self.landed(deadline).await?;
            self.page.settle_events(deadline).await;
            let requested = self.page.watch().nav.borrow().document_requests > documents_before;
            if requested {
                let loader = self.page.watch().nav.borrow().last_document_request.clone();
                self.wait_for_loader(loader.as_str(), WaitUntil::Load, deadline, "the history navigation").await?;
                return self.arrived(deadline).await.map(Some);
            }
            if landed.url == wanted || Instant::now() >= give_up {
                return self.arrived(deadline).await.map(Some);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Waits for the current document to reach `state` (it may already have).
    pub async fn wait_for_state(self, state: WaitUntil, deadline: Instant) -> Result<(), BrowserError> {
        let mut nav = self.page.watch().nav.clone();
        let waited = tokio::time::timeout_at(deadline, async {
            nav.wait_for(|n| state.reached(n) || n.crashed).await.map(|n| n.crashed)
        })
        .await;
        match waited {
            Ok(Ok(true)) => return Err(crashed()),
            Ok(Ok(false)) => {}
            Ok(Err(_)) => return Err(page_gone()),
            Err(_) => {
                return Err(BrowserError::Timeout(format!("page.waitFor timed out waiting for {}", state.as_str())));
            }
        }
        if state == WaitUntil::NetworkIdle {
            self.wait_for_quiet_network(NETWORK_IDLE_QUIET, deadline, "page.waitFor(networkidle)").await?;
        }
        Ok(())
    }

    /// Waits for the document `loader` (or one that replaced it) to reach `wait_until`.
    pub(super) async fn wait_for_loader(
        self,
        loader: &str,
        wait_until: WaitUntil,
        deadline: Instant,
        what: &str,
    ) -> Result<(), Unloaded> {
        wait_for_document(self.page, Document::Loader(loader), wait_until, deadline, what).await
    }

    /// Waits until no request has been in flight for `quiet`. Quiet as the pump has it is checked
    /// once more after every event Chromium sent until then is applied: a request the page started
    /// just before is in flight then, and the wait goes on (never an answer with a request of the
    /// page's own still pending, unless the deadline passed, which is an error saying so).
    pub async fn wait_for_quiet_network(
        self,
        quiet: Duration,
        deadline: Instant,
        what: &str,
    ) -> Result<(), BrowserError> {
        let mut net = self.page.watch().net.clone();
        loop {
            let state = net.borrow_and_update().clone();
            let now = Instant::now();
            if state.in_flight == 0 && now >= state.last_activity + quiet {
                self.page.settle_events(deadline).await;
                if !net.has_changed().unwrap_or(false) {
                    return Ok(());
                }
                continue;
            }
            if now >= deadline {
                let urls = pending_urls(&self.page.watch().store(), 3);
                return Err(BrowserError::Timeout(format!(
                    "{what} timed out waiting for the network to be idle for {} ms ({} request(s) still in flight{})",
                    quiet.as_millis(),
                    state.in_flight,
                    if urls.is_empty() { String::new() } else { format!(", e.g. {}", urls.join(", ")) }
                )));
            }
            let wake = if state.in_flight == 0 { (state.last_activity + quiet).min(deadline) } else { deadline };
            tokio::select! {
                _ = tokio::time::sleep_until(wake) => {}
                changed = net.changed() => if changed.is_err() { return Err(page_gone()) },
            }
        }
    }

    /// The current URL and title (and the main document's HTTP status).
    pub async fn landed(self, deadline: Instant) -> Result<Landed, BrowserError> {
        let read = Evaluate {
            expression: "({ url: location.href, title: document.title })",
            return_by_value: true,
            ..Evaluate::default()
        };
        let value = self.page.send(read, deadline).await?.result.value;
        let read: UrlAndTitle = value.and_then(|value| serde_json::from_value(value).ok()).unwrap_or_default();
        Ok(landed_at(self.page, read.url.as_deref(), read.title.as_deref()))
    }

    /// Where the page ended up after a navigation, with everything it reported filed: the DOM
    /// watcher's report taken (so the load breakdown ends with the document's last render) and
    /// every event Chromium sent before applied. The look that takes the report also reads the
    /// URL and title: one call and the settling round trip, where there were three and two.
    pub async fn arrived(self, deadline: Instant) -> Result<Landed, BrowserError> {
        arrival(self.page, deadline).await.map(|(landed, _)| landed)
    }

    /// The URL and title, or what the pump last saw when the page does not answer in time (a tab
    /// busy in a long task).
    pub async fn url_and_title(self, deadline: Instant) -> (String, String) {
        const PATIENCE: Duration = Duration::from_secs(2);
        match self.landed(deadline.min(Instant::now() + PATIENCE)).await {
            Ok(landed) => (landed.url, landed.title),
            Err(_) => (self.page.watch().nav.borrow().url.clone(), String::new()),
        }
    }
}

/// What `landed`'s expression answers.
#[derive(Debug, Default, Deserialize)]
struct UrlAndTitle {
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    title: Option<String>,
}

/// Follows a refresh of a second or less (a `Refresh` header or `<meta http-equiv="refresh">` of
/// `0; url=…`) like a redirect, as Chromium does (it replaces the history entry): the page goes on
/// after `ours` loads, but may start later than the quiet network `networkidle` waits for (a delay
/// of 1 s, or a loaded renderer's 0 s). Waits up to [`REFRESH_START`] for the next document
/// request, then for that document as for `ours` (how it ended is for the caller to read: a
/// refused one is [`refused_follow_up`]'s). `None` when the page stayed (a script stopped the
/// refresh).
async fn follow_refresh(
    page: &Page,
    ours: &str,
    wait_until: WaitUntil,
    deadline: Instant,
    what: &str,
) -> Result<Option<Landed>, BrowserError> {
    let until = deadline.min(Instant::now() + REFRESH_START);
    let Some(next) = document_request(page, |n| n.last_document_request != ours, until).await? else {
        return Ok(None);
    };
    match wait_for_document(page, Document::Loader(next.as_str()), wait_until, deadline, what).await {
        Ok(())
        | Err(Unloaded::Cancelled(_))
        | Err(Unloaded::Failed(BrowserError::NavigationFailed { .. } | BrowserError::UrlNotAllowed(_))) => {}
        Err(Unloaded::Failed(other)) => return Err(other),
    }
    page.nav().arrived(deadline).await.map(Some)
}

/// Waits until `started` says a main-frame document request began, and answers the latest one's id
/// (the loader id of the document it becomes); `None` when `until` came first.
async fn document_request(
    page: &Page,
    started: impl Fn(&NavState) -> bool,
    until: Instant,
) -> Result<Option<RequestId>, BrowserError> {
    let mut nav = page.watch().nav.clone();
    let waited = tokio::time::timeout_at(until, async {
        nav.wait_for(|n| started(n) || n.crashed).await.map(|n| (n.crashed, n.last_document_request.clone()))
    })
    .await;
    match waited {
        Ok(Ok((false, loader))) => Ok(Some(loader)),
        Ok(Ok((true, _))) => Err(crashed()),
        Ok(Err(_)) => Err(page_gone()),
        Err(_) => Ok(None),
    }
}

/// A document the page went on to by itself after `ours` loaded — a meta refresh, a `Refresh`
/// header, a script — that the egress policy refused: the navigation ended on a refused URL, as
/// with a redirect to it, so the call says so rather than answering the refusal page.
fn refused_follow_up(page: &Page, ours: &str, what: &str) -> Option<BrowserError> {
    let nav = page.watch().nav.borrow();
    if nav.last_document_request == ours {
        return None;
    }
    match nav.failure_of(nav.last_document_request.as_str()) {
        Some(DocumentFailure::BlockedByPolicy(detail)) => {
            let why = detail.as_ref().map(|d| format!(": {d}")).unwrap_or_default();
            Some(BrowserError::UrlNotAllowed(format!(
                "{what} loaded, then the page went on (a meta refresh, a Refresh header or a script) to a URL the \
                 egress policy blocked{why}"
            )))
        }
        _ => None,
    }
}

/// Waits until the `target` document (or one that replaced it) reaches `wait_until`.
async fn wait_for_document(
    page: &Page,
    target: Document<'_>,
    wait_until: WaitUntil,
    deadline: Instant,
    what: &str,
) -> Result<(), Unloaded> {
    let mut nav = page.watch().nav.clone();
    let is_target = |n: &NavState| match target {
        Document::Loader(loader) => n.loader_id == loader || n.replaced(loader),
        Document::NewerThan(before) => n.loader_id != before,
    };
    let failure = |n: &NavState| match target {
        Document::Loader(loader) => n.failure_of(loader).cloned(),
        Document::NewerThan(_) => None,
    };
    let mut waited = tokio::time::timeout_at(deadline, async {
        nav.wait_for(|n| n.crashed || failure(n).is_some() || (is_target(n) && wait_until.reached(n)))
            .await
            .map(|n| (n.crashed, failure(&n)))
    })
    .await;
    // The document's failure (its response event) may still be on its way on another event
    // channel than the load that ended the wait: apply what has arrived, then look again.
    if let Ok(Ok((false, None))) = waited {
        page.settle_events(deadline).await;
        waited = Ok(Ok((false, failure(&page.watch().nav.borrow()))));
    }
    let failed = |err: BrowserError| Err(Unloaded::Failed(err));
    match waited {
        Ok(Ok((true, _))) => return failed(crashed()),
        Ok(Ok((false, Some(DocumentFailure::BlockedByPolicy(detail))))) => {
            let why = detail.map(|d| format!(": {d}")).unwrap_or_default();
            return failed(BrowserError::UrlNotAllowed(format!("{what} was blocked by the egress policy{why}")));
        }
        Ok(Ok((false, Some(DocumentFailure::Cancelled(reason))))) => return Err(Unloaded::Cancelled(reason)),
        Ok(Ok((false, Some(DocumentFailure::Network(reason))))) => {
            return failed(BrowserError::NavigationFailed { url: String::new(), reason });
        }
        Ok(Ok((false, None))) => {}
        Ok(Err(_)) => return failed(page_gone()),
        Err(_) => {
            stop_loading(page).await;
            return failed(BrowserError::Timeout(format!(
                "{what} timed out waiting for the {} event",
                if wait_until == WaitUntil::DomContentLoaded { "DOMContentLoaded" } else { "load" }
            )));
        }
    }
    if wait_until == WaitUntil::NetworkIdle {
        page.nav().wait_for_quiet_network(NETWORK_IDLE_QUIET, deadline, what).await?;
    }
    Ok(())
}

/// [`Navigation::arrived`], and whether the document's markup sends it on within a second.
async fn arrival(page: &Page, deadline: Instant) -> Result<(Landed, bool), BrowserError> {
    let looked = page.look(None, deadline).await;
    page.settle_events(deadline).await;
    let refresh = looked.as_ref().is_some_and(|looked| looked.refresh);
    let scrolled = looked.as_ref().and_then(|looked| looked.scroll).filter(|(x, y)| *x != 0.0 || *y != 0.0);
    match looked.and_then(|looked| looked.url.zip(looked.title)) {
        Some((url, title)) => Ok((Landed { scrolled, ..landed_at(page, Some(&url), Some(&title)) }, refresh)),
        None => Ok((page.nav().landed(deadline).await?, refresh)),
    }
}

/// [`Landed`] from the URL and title the page gave (the URL the pump knows when it gave none) and
/// the status the pump saw.
fn landed_at(page: &Page, url: Option<&str>, title: Option<&str>) -> Landed {
    let nav = page.watch().nav.borrow().clone();
    // A password can end up in a URL (a GET form) or a title; it never leaves in either.
    Landed {
        url: page.redact(url.unwrap_or(&nav.url)),
        title: page.redact(title.unwrap_or_default()),
        status: nav.status(),
        scrolled: None,
    }
}

/// Cancels a navigation that timed out, so the next call does not queue behind it. It must finish
/// before the next call navigates, or it would cancel that one instead.
async fn stop_loading(page: &Page) {
    let deadline = Instant::now() + Duration::from_secs(2);
    page.send_unchecked(StopLoading {}, deadline).await;
}

/// True when going from `current` to `target` only changes the fragment (no new document).
fn is_same_document(current: &str, target: &str) -> bool {
    let base = |u: &str| u.split('#').next().unwrap_or_default().to_owned();
    target.contains('#') && !current.is_empty() && base(current) == base(target)
}

/// Which document a navigation waits for.
#[derive(Clone, Copy)]
enum Document<'a> {
    /// The one `Page.navigate` answered with.
    Loader(&'a str),
    /// Any document after the one that was current before the call (`Page.reload` names none).
    NewerThan(&'a str),
}

/// Chromium's answer to a call whose document went while it ran ("Inspected target navigated or
/// closed"): for the call that starts a navigation, that is the navigation starting.
fn left_before_answering(err: &BrowserError) -> bool {
    err.refusal() == Some(Refusal::TargetNavigated)
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_navigation_call_whose_document_went_before_it_answered_counts_as_started() {
        let went = BrowserError::Protocol {
            method: "Runtime.callFunctionOn".into(),
            message: "Inspected target navigated or closed".into(),
            refusal: Refusal::TargetNavigated,
        };
        assert!(left_before_answering(&went));
        let other = BrowserError::Protocol {
            method: "Runtime.callFunctionOn".into(),
            message: "Cannot find context with specified id".into(),
            refusal: Refusal::ContextGone,
        };
        assert!(!left_before_answering(&other), "a world gone before the call is retried, not taken as started");
        assert!(!left_before_answering(&BrowserError::Timeout("page.goto".into())));
    }
}
