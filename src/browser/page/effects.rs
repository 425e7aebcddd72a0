//! What an action caused: the requests it started (with their bodies when they failed), the
//! errors the page raised, the page it led to, and what is still in flight.
//!
//! An action takes a [`Mark`] before its input; afterwards [`Page::settle`] waits until every
//! request started since the mark has ended and the network has been quiet for [`QUIET`] (so a
//! handler reacting to a response is caught), bounded by the caller's `settleMs`. An action that
//! started nothing pays no wait at all. [`Page::effects`] then reads everything newer than the
//! mark from the signals — without draining them: `logs.pull` and `network.pull` still see it all.
//! The result is compact: data requests (fetch/XHR/documents) and failures listed, other
//! successful loads counted, at most a few errors each with "N more".

use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use tokio::time::Instant;

use super::handle::Page;
use super::pulls::PendingView;
use super::signals::{ConsoleEntry, Level, NetworkEntry, Origin, PageError, Signals};

const NEXT_TASK_JS: &str = include_str!("../../js/next_task.js");

/// How long the page gets to run what the input queued before the service looks.
const NEXT_TASK_WAIT: Duration = Duration::from_millis(500);

/// How long the network must stay quiet after the action's last request ended.
pub const QUIET: Duration = Duration::from_millis(100);
/// Requests listed before "N more".
const MAX_REQUESTS: usize = 8;
/// Console errors and page errors listed, each, before "N more".
const MAX_ERRORS: usize = 3;
/// Bytes of a request or response body shown in an effect.
const EFFECT_EXCERPT: usize = 1024;

/// Where the page stood when an action began.
#[derive(Debug, Clone)]
pub struct Mark {
    seq: u64,
    loader: String,
}

/// One request an action started.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequestEffect {
    pub method: String,
    /// Relative to the page's origin when it is the same.
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Why it failed (net::ERR_…, blocked_by_policy, aborted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    /// The script location that started it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initiator: Option<String>,
    /// For a failed fetch/XHR/document: the first 1 KB it posted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body: Option<String>,
    /// For a failed fetch/XHR/document: the first 1 KB of the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body: Option<String>,
    /// When responseBody is only the start: the whole body's size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body_bytes: Option<usize>,
    /// The id network.body takes for the whole response body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// The document an action led to.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Navigated {
    pub url: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
}

/// What an action caused. Empty lists and zero counts are left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Effects {
    /// Fetch/XHR/document requests the action started, and any that failed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<RequestEffect>,
    #[serde(skip_serializing_if = "is_zero")]
    pub more_requests: u64,
    /// Other loads (images, scripts, styles …) that succeeded, counted.
    #[serde(skip_serializing_if = "is_zero")]
    pub other_requests: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub console_errors: Vec<ConsoleEntry>,
    #[serde(skip_serializing_if = "is_zero")]
    pub more_console_errors: u64,
    /// Uncaught exceptions and unhandled rejections, with the throwing line.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub page_errors: Vec<PageError>,
    #[serde(skip_serializing_if = "is_zero")]
    pub more_page_errors: u64,
    /// Dialogs and file choosers the action opened and how each was answered
    /// (`confirm("Delete?") dismissed`, `file chooser answered with a.csv (armed)`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dialogs: Vec<String>,
    /// Downloads the action began or that finished meanwhile (`download report.csv finished: 812
    /// bytes`); `downloads.read` returns them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub downloads: Vec<String>,
    /// Popups the action opened, each a new tab of the session (`popup opened as tab 9a3f0c21:
    /// /report`): pass its `tab_id` to any page method, or `tabs.focus` it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub popups: Vec<String>,
    /// The new document, when the action led to one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub navigated: Option<Navigated>,
    /// Requests still in flight when settling ended.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<PendingView>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Page {
    /// Marks where the page stands before an action.
    pub fn mark(&self) -> Mark {
        Mark { seq: self.watch().signals().seq(), loader: self.loader_id() }
    }

    /// Waits until every request started since `mark` has ended and nothing has started or ended
    /// for [`QUIET`], for at most `settle` (and never past `deadline`). Returns at once when the
    /// action started nothing.
    pub async fn settle(&self, mark: &Mark, settle: Duration, deadline: Instant) {
        if settle.is_zero() {
            return;
        }
        // Let the page run the tasks the input queued (a handler's fetch starts on one of its
        // own); then whatever the action started has been reported. A page busy in a loop or
        // navigating away just skips this.
        let _ = self.call_helper(NEXT_TASK_JS, &[], (Instant::now() + NEXT_TASK_WAIT).min(deadline)).await;
        self.settle_events(deadline).await;
        let until = (Instant::now() + settle).min(deadline);
        let mut net = self.watch().net.clone();
        loop {
            net.borrow_and_update();
            let (last, open) = self.watch().signals().activity_since(mark.seq);
            let Some(last) = last else { return };
            let now = Instant::now();
            if open == 0 && now >= last + QUIET {
                break;
            }
            if now >= until {
                break;
            }
            let wake = if open == 0 { (last + QUIET).min(until) } else { until };
            tokio::select! {
                _ = tokio::time::sleep_until(wake) => {}
                changed = net.changed() => if changed.is_err() { break },
            }
        }
        // A handler that ran on the last response may have logged or thrown: collect it.
        self.settle_events(deadline).await;
    }

    /// What happened since `mark` (see [`Effects`]).
    pub async fn effects(&self, mark: &Mark, deadline: Instant) -> Effects {
        self.wait_for_fetches(deadline, |s| !s.bodies_pending(mark.seq) && !s.sources_pending(mark.seq)).await;
        let navigated = if self.loader_id() != mark.loader {
            self.landed(deadline).await.ok().map(|landed| Navigated {
                url: landed.url,
                title: landed.title,
                status: landed.status,
            })
        } else {
            None
        };
        let origin = origin_of(&self.watch().nav.borrow().url);
        let signals = self.watch().signals();
        let mut effects = collect(&signals, mark.seq, &origin);
        effects.navigated = navigated;
        effects
    }
}

/// The effects since `since`, from the signals.
fn collect(signals: &Signals, since: u64, origin: &str) -> Effects {
    let redactor = &signals.redactor;
    let (finished, pending) = signals.requests_since(since);
    let mut effects = Effects::default();
    for entry in finished {
        if !(entry.is_data() || entry.is_error()) {
            effects.other_requests += 1;
            continue;
        }
        if effects.requests.len() == MAX_REQUESTS {
            effects.more_requests += 1;
            continue;
        }
        effects.requests.push(request_effect(signals, entry, origin));
    }
    let now = Instant::now();
    effects.pending = pending
        .into_iter()
        .map(|p| PendingView {
            method: p.method.clone(),
            url: relative(&redactor.text(&p.url), origin),
            resource_type: p.resource_type.clone(),
            age_ms: now.saturating_duration_since(p.started).as_millis() as u64,
        })
        .collect();
    effects.dialogs = newer(signals.console.iter(), since, |e| e.seq)
        .filter(|e| e.kind == Origin::Dialog)
        .map(|e| redactor.text(&e.text))
        .collect();
    effects.downloads = newer(signals.console.iter(), since, |e| e.seq)
        .filter(|e| e.kind == Origin::Download)
        .map(|e| redactor.text(&e.text))
        .collect();
    effects.popups = newer(signals.console.iter(), since, |e| e.seq)
        .filter(|e| e.kind == Origin::Popup)
        .map(|e| redactor.text(&e.text))
        .collect();
    let console: Vec<&ConsoleEntry> =
        newer(signals.console.iter(), since, |e| e.seq).filter(|e| Level::of(&e.method) == Level::Error).collect();
    effects.more_console_errors = console.len().saturating_sub(MAX_ERRORS) as u64;
    effects.console_errors = console
        .into_iter()
        .take(MAX_ERRORS)
        .map(|e| ConsoleEntry { text: redactor.text(&e.text), ..e.clone() })
        .collect();
    let errors: Vec<&PageError> = newer(signals.page_errors.iter(), since, |e| e.seq).collect();
    effects.more_page_errors = errors.len().saturating_sub(MAX_ERRORS) as u64;
    effects.page_errors = errors
        .into_iter()
        .take(MAX_ERRORS)
        // The stack is in logs.pull; here the throwing line says enough.
        .map(|e| PageError { message: redactor.text(&e.message), stack: None, ..e.clone() })
        .collect();
    effects
}

/// Entries of a ring newer than `since`, oldest first.
fn newer<'a, T: 'a>(
    items: impl DoubleEndedIterator<Item = &'a T>,
    since: u64,
    seq: impl Fn(&T) -> u64,
) -> impl Iterator<Item = &'a T> {
    let mut recent: Vec<&T> = items.rev().take_while(|e| seq(e) > since).collect();
    recent.reverse();
    recent.into_iter()
}

fn request_effect(signals: &Signals, entry: &NetworkEntry, origin: &str) -> RequestEffect {
    let failed_data = entry.is_error() && entry.is_data();
    let shown = signals.shown(entry, failed_data, EFFECT_EXCERPT);
    RequestEffect {
        method: shown.method,
        url: relative(&shown.url, origin),
        status: shown.status,
        failure: shown.failure,
        ms: shown.ms,
        initiator: shown.initiator.map(|i| relative_in(&i, origin)),
        request_body: shown.request_body.filter(|_| failed_data),
        response_body: shown.response_body,
        response_body_bytes: shown.response_body_bytes,
        request_id: failed_data.then(|| entry.request_id.clone()),
    }
}

/// `scheme://host[:port]` of a URL, or "" when it has none.
fn origin_of(url: &str) -> String {
    url::Url::parse(url).map(|u| u.origin().ascii_serialization()).ok().filter(|o| o != "null").unwrap_or_default()
}

/// `url` without `origin` when it starts with it.
fn relative(url: &str, origin: &str) -> String {
    match url.strip_prefix(origin) {
        Some(rest) if !origin.is_empty() && rest.starts_with('/') => rest.to_owned(),
        _ => url.to_owned(),
    }
}

/// Every occurrence of `origin` + `/` in `text` shortened to `/`.
fn relative_in(text: &str, origin: &str) -> String {
    if origin.is_empty() { text.to_owned() } else { text.replace(&format!("{origin}/"), "/") }
}

#[cfg(test)]
mod tests {
    use super::super::signals::{Origin, PendingRequest};
    use super::*;

    fn request(url: &str, resource_type: &str, status: u16, body: Option<&str>) -> PendingRequest {
        PendingRequest {
            seq: 0,
            url: url.into(),
            method: if body.is_some() { "POST" } else { "GET" }.into(),
            resource_type: resource_type.into(),
            status: Some(status),
            mime_type: "application/json".into(),
            started: Instant::now(),
            start_ts: 1.0,
            initiator: Some("submitOrder (http://app:1/order/app.js:12:5)".into()),
            request_body: body.map(str::to_owned),
            browser_own: false,
        }
    }

    #[test]
    fn effects_list_data_requests_with_failed_bodies_and_count_the_rest() {
        let mut s = Signals::default();
        s.request_started("before".into(), request("http://app:1/api/old", "Fetch", 500, None));
        s.request_finished("before", 1.1);
        let since = s.seq();
        s.request_started("post".into(), request("http://app:1/api/orders", "Fetch", 422, Some(r#"{"qty":0}"#)));
        s.request_finished("post", 1.2);
        s.body("post", Some(r#"{"error":"qty must be at least 1"}"#.into()));
        s.request_started("img".into(), request("http://app:1/a.png", "Image", 200, None));
        s.request_finished("img", 1.3);
        s.request_started("ok".into(), request("http://other/api", "XHR", 200, None));
        s.request_finished("ok", 1.4);
        s.body("ok", Some("{}".into()));
        let effects = collect(&s, since, "http://app:1");
        assert_eq!(effects.other_requests, 1, "the image is counted, not listed");
        assert_eq!(effects.requests.len(), 2, "{effects:?}");
        let post = &effects.requests[0];
        assert_eq!((post.url.as_str(), post.status), ("/api/orders", Some(422)));
        assert_eq!(post.request_body.as_deref(), Some(r#"{"qty":0}"#));
        assert_eq!(post.response_body.as_deref(), Some(r#"{"error":"qty must be at least 1"}"#));
        assert_eq!(post.initiator.as_deref(), Some("submitOrder (/order/app.js:12:5)"));
        let ok = &effects.requests[1];
        assert_eq!(ok.url, "http://other/api", "another origin keeps its full URL");
        assert!(ok.response_body.is_none() && ok.request_id.is_none(), "a success carries no body here");
    }

    #[test]
    fn effects_keep_the_first_errors_and_count_the_rest() {
        let mut s = Signals::default();
        let since = s.seq();
        for i in 0..5 {
            s.page_error_at(
                PageError {
                    seq: 0,
                    kind: Origin::Exception,
                    message: format!("Error {i}"),
                    location: None,
                    source: None,
                    stack: Some("long stack".into()),
                    source_pending: false,
                },
                None,
            );
        }
        let effects = collect(&s, since, "");
        assert_eq!(effects.page_errors.len(), 3);
        assert_eq!(effects.more_page_errors, 2);
        assert_eq!(effects.page_errors[0].message, "Error 0");
        assert!(effects.page_errors[0].stack.is_none(), "the stack is for logs.pull");
        assert_eq!(serde_json::to_value(Effects::default()).unwrap(), serde_json::json!({}), "nothing, compactly");
    }
}
