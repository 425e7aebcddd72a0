//! `network.pull` and `network.body`: the page's answered requests the pull has not returned yet
//! (those a query selects), with their times and bodies, and those still in flight. A pull marks
//! what it returned and nothing else; `network.har`, `page.timeline` and effects still see every
//! request. One answer holds at most [`PULL_BUDGET`] bytes; the rest waits (`more`).

use schemars::JsonSchema;
use serde::Serialize;

use super::super::bodies::{SESSION_CAP, cut};
use super::super::records::{Entry, Outcome, Record, RequestRecord, is_noise_url};
use super::super::shape;
use super::super::store::Store;
use super::places::Places;
use super::wire::{self, HeaderPairs};
use crate::browser::chromium::ids::RequestId;
use crate::browser::chromium::kinds::ResourceType;

/// Bytes of a body shown in network.pull (network.body returns the whole).
pub const PULL_EXCERPT: usize = 2048;
/// Bytes of requests one pull returns at most.
pub const PULL_BUDGET: usize = 1024 * 1024;

/// Which answered requests a `network.pull` returns (and marks as pulled).
#[derive(Debug, Clone, Default)]
pub struct NetworkQuery {
    /// Only failed requests and status >= 400.
    pub only_errors: bool,
    /// Only URLs containing this.
    pub url_contains: Option<String>,
    /// Only these resource types.
    pub resource_types: Option<Vec<ResourceType>>,
    /// Noise too (`data:`/`blob:` URLs, the dev server's own client: [`is_noise_url`]).
    pub include_noise: bool,
    /// Each entry's request and response headers too.
    pub headers: bool,
}

impl NetworkQuery {
    fn wants(&self, r: &RequestRecord) -> bool {
        (self.include_noise || !is_noise_url(&r.url))
            && (!self.only_errors || r.is_error())
            && (self.only_errors || !r.browser_own || r.is_error())
            && self.url_contains.as_deref().is_none_or(|part| r.url.contains(part))
            && self.resource_types.as_ref().is_none_or(|types| types.contains(&r.resource_type))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkEntry {
    /// For network.body.
    pub request_id: RequestId,
    pub url: String,
    pub method: String,
    /// HTTP status; absent when no answer arrived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    pub resource_type: ResourceType,
    /// Why the request failed (net::ERR_CONNECTION_REFUSED, blocked_by_policy, aborted …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Cut off unanswered because the page navigated away (not a failure).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
    /// Answered, but the page never read the body (it only looked at the status).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub body_not_read: bool,
    /// Milliseconds from the request's start to its end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    /// When it started: ms since the document started loading.
    pub start_ms: i64,
    /// When it ended (or was answered, for a body never read), on the same clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_ms: Option<i64>,
    /// Milliseconds from its start to its answer's headers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttfb_ms: Option<u64>,
    /// The script location (or document line) that started it: `function (url:line:column)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initiator: Option<String>,
    /// The first 2 KB of the posted data (secrets masked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body: Option<String>,
    /// The first 2 KB of the response's text body (fetch/XHR and documents, and error responses).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body: Option<String>,
    /// When responseBody is only the start of the body: the whole body's size in bytes
    /// (network.body returns it all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body_bytes: Option<usize>,
    /// A cut JSON body's keys and types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_outline: Option<String>,
    /// A redirect hop: where its answer sent the request (the next hop is the next entry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redirected_to: Option<String>,
    /// Cookies sent (names), withheld (why) and set or refused by its answer; never a value.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cookies: Vec<String>,
    /// With `headers`: `[name, value]` as sent (Cookie, Authorization and secret-named values masked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_headers: Option<HeaderPairs>,
    /// With `headers`: `[name, value]` as answered (Set-Cookie values masked, attributes kept).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_headers: Option<HeaderPairs>,
}

/// A request still in flight.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PendingView {
    pub method: String,
    pub url: String,
    pub resource_type: ResourceType,
    /// Milliseconds since it started.
    pub age_ms: u64,
}

/// What `network.pull` returns.
#[derive(Debug, Default)]
pub struct NetworkPull {
    pub requests: Vec<NetworkEntry>,
    pub pending: Vec<PendingView>,
    /// Requests that fell off the timeline before a pull returned them.
    pub dropped: u64,
    /// Requests the query selects left for the next pull (this one reached its size budget).
    pub more: u64,
}

/// The code that started `r`: the app's own frames of its initiator's stack through its async
/// parents, in their original source (`request (src/api/http.ts:14) ← submitClaim
/// (src/api/claims.ts:25) ← submit (src/components/ClaimForm.tsx:18)`); without an app frame,
/// `function (url:line:column)`, the way stack traces name a place.
pub fn initiator_text(r: &RequestRecord, places: &Places) -> Option<String> {
    if let Some(chain) = places.chain(&r.callers) {
        return Some(chain);
    }
    let at = r.initiator.as_ref()?;
    let spot = if at.line == 0 { at.url.clone() } else { format!("{}:{}:{}", at.url, at.line, at.column) };
    Some(if at.function.is_empty() { spot } else { format!("{} ({spot})", at.function) })
}

/// Characters of a `data:` URL shown after its comma (it can run to megabytes; the HAR keeps it).
const DATA_URL_CHARS: usize = 40;

/// `url`, a long `data:` URL cut after its media type and a few characters, its length said.
fn shortened(url: &str) -> String {
    let Some((head, data)) = url.split_once(',').filter(|_| url.starts_with("data:")) else { return url.to_owned() };
    if data.chars().count() <= DATA_URL_CHARS {
        return url.to_owned();
    }
    let kept: String = data.chars().take(DATA_URL_CHARS).collect();
    format!("{head},{kept}… ({} bytes)", url.len())
}

/// A request as shown: masked, with its captured body excerpt (when `with_body`), its times
/// relative to its document.
pub fn shown(
    store: &Store,
    entry: &Entry,
    r: &RequestRecord,
    (with_body, excerpt): (bool, usize),
    places: &Places,
) -> NetworkEntry {
    let redactor = &store.redactor;
    // A hop's id is its chain's: the body captured is the last hop's.
    let body = (with_body && !r.is_hop()).then(|| store.bodies.get(&r.id)).flatten();
    let origin = store.timeline.origin_of(entry.at);
    let end = r.done_at();
    NetworkEntry {
        request_id: r.id.clone(),
        url: redactor.text(&shortened(&r.url)),
        method: r.method.clone(),
        status: r.status(),
        resource_type: r.resource_type.clone(),
        failure: r.failure().map(str::to_owned),
        cancelled: matches!(r.end, Some((_, Outcome::Cancelled))),
        body_not_read: r.body_unread || matches!(r.end, Some((_, Outcome::BodyNotRead))),
        ms: end.map(|end| (end - entry.at).max(0.0).round() as u64),
        start_ms: (entry.at - origin).round() as i64,
        end_ms: end.map(|end| (end - origin).round() as i64),
        ttfb_ms: r.response.as_ref().map(|a| (a.at - entry.at).max(0.0).round() as u64),
        initiator: initiator_text(r, places),
        request_body: r.posted.as_deref().map(|b| redactor.body(cut(b, excerpt).0)),
        response_body: body.map(|body| redactor.body(cut(&body.text, excerpt).0)),
        response_body_bytes: body.filter(|b| b.text.len() > excerpt || b.truncated).map(|b| b.text.len()),
        response_outline: body.filter(|b| b.text.len() > excerpt).and_then(|b| shape::outline(&b.text)),
        redirected_to: r.redirected_to.as_ref().map(|to| redactor.text(to)),
        cookies: wire::entry_lines(store, r),
        request_headers: None,
        response_headers: None,
    }
}

/// The requests after any earlier pull that `query` selects (answered ones; the rest stay), at
/// most [`PULL_BUDGET`] bytes of them, marked as pulled; and those in flight.
pub fn pull(store: &mut Store, query: &NetworkQuery, now: f64, places: &Places) -> NetworkPull {
    let mut pull = NetworkPull::default();
    let mut taken = Vec::new();
    let mut budget = PULL_BUDGET;
    for entry in store.timeline.iter() {
        let Record::Request(r) = &entry.record else { continue };
        if r.pulled || !r.is_settled() || !query.wants(r) {
            continue;
        }
        let with_body = r.is_error() || (!query.only_errors && r.is_data());
        let mut shown = shown(store, entry, r, (with_body, PULL_EXCERPT), places);
        if query.headers {
            (shown.request_headers, shown.response_headers) = wire::header_lists(store, r);
        }
        let cost = serde_json::to_vec(&shown).map_or(0, |v| v.len());
        if cost > budget && !pull.requests.is_empty() {
            pull.more += 1;
            budget = 0;
            continue;
        }
        budget = budget.saturating_sub(cost);
        taken.push(entry.seq);
        pull.requests.push(shown);
    }
    pull.pending = pending(store, 0, now, |r| query.url_contains.as_deref().is_none_or(|part| r.url.contains(part)));
    pull.dropped = store.timeline.network_pulled(&taken);
    pull
}

/// Requests after entry `since` still in flight (unanswered), oldest first, the browser's own
/// left out.
pub fn pending(store: &Store, since: u64, now: f64, wanted: impl Fn(&RequestRecord) -> bool) -> Vec<PendingView> {
    store
        .timeline
        .since(since)
        .filter_map(|entry| match &entry.record {
            Record::Request(r) if !r.browser_own && !r.is_answered() && wanted(r) => Some(PendingView {
                method: r.method.clone(),
                url: store.redactor.text(&r.url),
                resource_type: r.resource_type.clone(),
                age_ms: (now - entry.at).max(0.0) as u64,
            }),
            _ => None,
        })
        .collect()
}

/// Up to `limit` URLs of requests still in flight (for timeout messages).
pub fn pending_urls(store: &Store, limit: usize) -> Vec<String> {
    pending(store, 0, 0.0, |_| true).into_iter().take(limit).map(|p| p.url.chars().take(200).collect()).collect()
}

/// The whole captured body of `request_id`, secrets masked, whether it was cut at the cap, and
/// its last hop's request and response headers.
pub fn whole_body(store: &Store, request_id: &str) -> Result<WholeBody, String> {
    let headers = || {
        let last = store.timeline.iter().rev().find_map(|e| match &e.record {
            Record::Request(r) if r.id.as_str() == request_id => Some(wire::header_lists(store, r)),
            _ => None,
        });
        last.unwrap_or_default()
    };
    match store.bodies.get(request_id) {
        Some(body) => {
            let (request_headers, response_headers) = headers();
            let text = store.redactor.body(&body.text);
            Ok(WholeBody { text, truncated: body.truncated, request_headers, response_headers })
        }
        None if store.bodies.was_evicted(request_id) => Err(format!(
            "the body of {request_id} was evicted: a page keeps {} MiB of bodies, newest first",
            SESSION_CAP / (1024 * 1024)
        )),
        None => Err(format!(
            "no body was captured for {request_id}: bodies are kept for fetch/XHR and document responses \
             and for error responses with a text body, once they have finished"
        )),
    }
}

/// A whole captured body, and the headers of the hop that brought it.
#[derive(Debug, Default)]
pub struct WholeBody {
    pub text: String,
    pub truncated: bool,
    pub request_headers: Option<HeaderPairs>,
    pub response_headers: Option<HeaderPairs>,
}

/// The content type the newest response for `url` declared (a download's request is often never
/// finished in the Network domain: Chromium hands it to the download).
pub fn mime_of(store: &Store, url: &str) -> Option<String> {
    store.timeline.iter().rev().find_map(|entry| match &entry.record {
        Record::Request(r) if r.url == url => r.response.as_ref().map(|a| a.mime.clone()).filter(|m| !m.is_empty()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_data_url_is_shown_cut_with_its_length_and_noise_is_told_apart() {
        let logo = format!("data:image/svg+xml;base64,{}", "PHN2ZyB4bWxucz0i".repeat(20));
        let shown = shortened(&logo);
        assert_eq!(shown, format!("data:image/svg+xml;base64,{}… (346 bytes)", &logo[26..66]));
        assert_eq!(shortened("data:text/plain,hi"), "data:text/plain,hi");
        assert_eq!(shortened("http://app/a,b"), "http://app/a,b");
        for noise in [logo.as_str(), "blob:http://app/1f0c", "http://app/@vite/client", "http://app/@react-refresh"] {
            assert!(is_noise_url(noise), "{noise}");
        }
        for app in ["http://app/src/main.tsx", "http://app/api/claims", "http://app/node_modules/.vite/deps/vue.js"] {
            assert!(!is_noise_url(app), "{app}");
        }
    }
}
